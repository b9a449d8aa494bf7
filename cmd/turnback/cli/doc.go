// Package cli is turnback's command line, run by both programs:
// turnback (cmd/turnback) and turnback-full (cmd/turnback-full). Main
// takes the commands only turnback-full links (package full); turnback
// passes none and hands those commands over (forward.go).
//
// This package is the command line only: flags, exit codes and error
// hints (main.go, hints.go), one cmd_<name>.go per command, and the one
// way a command gets its Repo and session (global.go). Help texts live in
// package help, output in termout, agent hooks in agent, daemons in
// daemons (which also starts one by itself). docs/design.md lists every package.
//
// A hook never exits with a code that blocks the agent. Its failures go
// to hook.log in the store. A refused folder has none: they go to the
// store root's hook.log.
package cli
