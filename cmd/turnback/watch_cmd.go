package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/daemons"
	"github.com/turnback/turnback/cmd/turnback/envopt"
	"github.com/turnback/turnback/cmd/turnback/termout"
	"github.com/turnback/turnback/watch/daemon"
)

func newWatchCmd(g *globals) *cobra.Command {
	var detach, stop, status, auto, list, stopAll bool
	var underDir string
	var idle time.Duration
	var queue int
	cmd := &cobra.Command{
		Use:   "watch [--detach] [--idle-timeout DUR] | watch --stop | watch --status | watch --list | watch --stop-all",
		Short: "Keep the store open and watch the folder, so every command costs only what changed",
		Long: `watch runs a daemon that holds the folder's store open and watches every
directory of the folder (inotify on Linux). While it runs, every turnback
command run on the folder (snap, end, status, undo, ...) is forwarded to it
over a unix socket beside the store (mode 0600, owner only): the output,
--json documents and exit codes are the same, but a capture reads only the
directories where something happened instead of walking the whole tree.
When the daemon is not running, everything works as before.

On Linux a daemon also starts by itself: a snap, end or status (or an
agent hook) that captured the folder without one and found at least
TURNBACK_AUTO_WATCH files (default 2000; 0 turns this off), or a hook
that ran out of its time budget capturing it, starts one in the
background as it exits, with a 30-minute idle timeout. A daemon
stops when its folder or store is removed (see below); one started by
itself that cannot
watch leaves watch.failed in the store, and none starts by itself for a
day after that. None starts by itself for / or the home directory, on
network or FUSE filesystems (NFS, SMB, sshfs, 9p: inotify does not see
changes made from elsewhere), or when watching the folder would leave
fewer than 16384 inotify watches to the user's other programs.

The watcher is a hint, never the truth: when it cannot vouch for what it
saw (its queue overflowed, the inotify watch limit was reached, an ignore
file changed, the first capture) the capture walks everything and says so
in the "watch" member of --json stats.

A daemon stops, releasing the store, its socket and its memory, within
two seconds of: watch --stop; SIGTERM or SIGINT; its idle timeout
(counted from the last command it served: changes in the folder do not
keep it alive); its folder removed or replaced by another directory; its
store removed, moved or replaced. It never waits on a store whose
directory is gone: it exits 1 saying why (on stderr, watch.log when
detached), and what the store had not flushed is replayed by the next
command that opens it.

watch --list shows every watch daemon of this user on this machine (pid,
start time, idle time, memory, folder, store, and problems: "store gone",
"folder gone", "not answering"), found from the processes themselves
(/proc on Linux) and asked over their sockets, so also one that a
registry would have lost. watch --stop-all stops them: over the socket,
then by SIGTERM; one that survives is named and the exit code is 1.
--under DIR keeps both to daemons whose folder or store is in DIR.

watch runs in the foreground until interrupted (SIGINT, SIGTERM) or
stopped, which suits systemd; --detach starts it in the background
(logging to watch.log in the store) and returns once the daemon watches
and has made its first, full capture of the folder. Commands that come
while a daemon starts wait for it as they would for any other command
(TURNBACK_LOCK_WAIT, then exit 4). A daemon killed outright leaves a socket that the
next command notices and removes; an undo it was running is finished or
rolled back by the next command, as without the daemon.

Watching costs one inotify watch per directory (see
/proc/sys/fs/inotify/max_user_watches) and the store stays locked: other
programs using the Go API wait for it, as for any turnback command.`,
		Example: `  turnback watch --detach                 # start for this folder
  turnback watch --detach --idle-timeout 2h
  turnback --json snap                    # now forwarded: see stats.watch
  turnback watch --status                 # is one running? (--json: pid, requests, ready)
  turnback watch --stop                   # stop it
  turnback watch --list                   # every daemon of this user
  turnback --json watch --list            # the same, one JSON document
  turnback watch --stop-all               # stop them all
  turnback watch --stop-all --under /tmp  # only those of folders or stores in /tmp`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if n := countTrue(stop, detach, status, list, stopAll); n > 1 {
				return usageError{errors.New("--stop, --detach, --status, --list and --stop-all do not go together")}
			}
			if idle < 0 {
				return usageError{fmt.Errorf("--idle-timeout must not be negative")}
			}
			if underDir != "" && !list && !stopAll {
				return usageError{errors.New("--under goes with --list or --stop-all")}
			}
			switch {
			case list:
				list, err := daemons.FindUnder(underDir)
				if err != nil {
					return err
				}
				return daemons.PrintList(g.stdout, list, g.json, g.location())
			case stopAll:
				list, err := daemons.FindUnder(underDir)
				if err != nil {
					return err
				}
				if n := daemons.StopAll(g.stdout, g.stderr, list, g.json); n > 0 {
					return codedError{code: exitError, err: fmt.Errorf("turnback: watch --stop-all: %d daemons still run", n)}
				}
				return nil
			}
			workTree, storeDir, _, err := g.locate()
			if err != nil {
				return err
			}
			if storeDir == "" {
				_, err := os.Stat(workTree)
				return fmt.Errorf("turnback: work tree: %w", err)
			}
			switch {
			case status:
				if info, ok := daemon.Ping(storeDir); ok {
					return g.reportDaemon(info, "watching")
				}
				return g.reportNoDaemon(workTree)
			case stop:
				return g.stopDaemon(workTree, storeDir)
			case detach:
				return g.detach(cmd, workTree, storeDir, idle, queue)
			}
			return g.runDaemon(cmd, workTree, storeDir, idle, queue, auto)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&detach, "detach", false, "run in the background; return once the daemon has made its first capture")
	f.BoolVar(&stop, "stop", false, "stop the daemon of this folder (waits until it has released the store)")
	f.BoolVar(&status, "status", false, "say whether a daemon watches this folder (--json: its pid, requests served, ready), starting none")
	f.BoolVar(&list, "list", false, "list every watch daemon of this user (pid, since, idle, memory, folder, store, problems)")
	f.BoolVar(&stopAll, "stop-all", false, "stop every watch daemon of this user (socket, then SIGTERM); exit 1 if one survives")
	f.StringVar(&underDir, "under", "", "with --list or --stop-all: only daemons whose folder or store is in `DIR`")
	f.DurationVar(&idle, "idle-timeout", 0, "stop after this long without a command, e.g. 30m or 8h (default: never)")
	f.IntVar(&queue, "queue-size", 0, "bound of the watcher's event queue (default 16384); beyond it the next capture walks everything")
	_ = f.MarkHidden("queue-size")
	f.BoolVar(&auto, "auto", false, "started by a command (TURNBACK_AUTO_WATCH): quiet if a daemon runs; a failure to watch stops automatic starts for a day")
	_ = f.MarkHidden("auto")
	return cmd
}

func (g *globals) reportDaemon(info *daemon.Info, what string) error {
	if g.json {
		termout.WriteJSON(g.stdout, info)
		return nil
	}
	fmt.Fprintf(g.stdout, "%s %s (pid %d)\n", what, termout.QuotePath(info.WorkTree), info.PID)
	return nil
}

func (g *globals) reportNoDaemon(workTree string) error {
	if g.json {
		termout.WriteJSON(g.stdout, map[string]any{"running": false, "work_tree": workTree})
	} else {
		fmt.Fprintf(g.stdout, "no watch daemon for %s\n", termout.QuotePath(workTree))
	}
	return nil
}

func countTrue(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// stopDaemon is watch --stop.
func (g *globals) stopDaemon(workTree, storeDir string) error {
	info, err := daemons.StopOne(storeDir)
	switch {
	case err != nil:
		return err
	case info == nil:
		return g.reportNoDaemon(workTree)
	case g.json:
		termout.WriteJSON(g.stdout, map[string]any{"running": false, "stopped": info.PID, "work_tree": info.WorkTree})
	default:
		fmt.Fprintf(g.stdout, "stopped the watch daemon of %s (pid %d)\n", termout.QuotePath(info.WorkTree), info.PID)
	}
	return nil
}

// runDaemon is watch without --detach: the daemon runs in this process.
func (g *globals) runDaemon(cmd *cobra.Command, workTree, storeDir string, idle time.Duration, queue int, auto bool) error {
	o := daemons.RunOptions{WorkTree: workTree, Options: turnback.Options{Store: storeDir, Force: g.force}, Idle: idle, Queue: queue, Auto: auto, Log: g.stderr,
		Handler: daemonHandler}
	o.Configure = func(opts *turnback.Options) error {
		if err := envopt.Limits(g.getenv, opts); err != nil {
			return usageError{err}
		}
		return nil
	}
	if g.json {
		o.JSON = g.stdout
	}
	err := daemons.Run(cmd.Context(), o)
	if errors.Is(err, daemons.ErrRunning) {
		return codedError{code: exitBusy, err: err}
	}
	return err
}

// detach is watch --detach.
func (g *globals) detach(cmd *cobra.Command, workTree, storeDir string, idle time.Duration, queue int) error {
	info, already, err := daemons.Detach(cmd.Context(), workTree, storeDir, g.force, idle, queue)
	if err != nil {
		return err
	}
	if already {
		return g.reportDaemon(info, "already watching")
	}
	return g.reportDaemon(info, "watching")
}
