// Command turnback gives per-turn undo and redo of every file change in a
// folder. Run "turnback --help" for the commands.
//
// # Layout
//
// This package is the command line only: flags, exit codes and error
// printing (main.go), the global flags and the one way a command gets
// its Repo (global.go: withRepo opens the store with the access the
// command needs and closes it), and one cmd_<name>.go file per command.
// Long help texts are data, in help/<command>.txt. Everything else lives
// in packages of its own:
//
//	termout    what is printed: quoting, colour, progress, diffs, the --json
//	           documents and the human summaries
//	envopt     TURNBACK_* options and locating the work tree and store
//	agent      agent hooks and init, one file per agent behind one payload
//	           normaliser (Event)
//	autowatch  when a command starts a watch daemon by itself
//	daemons    the daemon in this process, --detach, --stop, --list,
//	           --stop-all, and the handler that runs forwarded commands
//	diag       version line, CPU profile, peak memory
//
// The daemon's wire protocol, client and server loop are below the
// library API, in watch/daemon, so that programs can reach a running
// daemon without this package.
//
// # Failure behaviour
//
// Every error is printed once, on stderr, prefixed "turnback:", with a
// hint where the CLI has one (hints.go: the library's errors name no
// flags); the exit code says what kind of failure it was (see the
// README's exit codes). A hook never exits with a code that blocks the
// agent: its failures go to hook.log.
package main
