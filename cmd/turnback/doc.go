// Command turnback gives per-turn undo and redo of every file change in a
// folder. Run "turnback --help" for the commands.
//
// This package is the command line only: flags, exit codes and error
// printing with the CLI's hints (main.go, hints.go), the one way a
// command gets its Repo and its session (global.go), one cmd_<name>.go
// per command, and the long help texts in package help. What is printed
// is in termout; agent hooks and init in agent; daemons in daemons,
// autowatch and, below the library API, watch/daemon (the README's
// Layout lists them all). A hook never exits with a code that blocks
// the agent: failures go to hook.log.
package main
