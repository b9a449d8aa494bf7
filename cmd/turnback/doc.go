// Command turnback gives per-turn undo and redo of every file change in a
// folder. Run "turnback --help" for the commands.
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
package main
