package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/autowatch"
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
				return g.listDaemons(underDir)
			case stopAll:
				return g.stopAll(underDir)
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

// runDaemon runs the daemon in this process until it stops.
func (g *globals) runDaemon(cmd *cobra.Command, workTree, storeDir string, idle time.Duration, queue int, auto bool) error {
	ctx := cmd.Context()
	if info, ok := daemon.Ping(storeDir); ok {
		if auto {
			return nil
		}
		return codedError{code: exitBusy, err: fmt.Errorf("%w: pid %d already watches %s", errDaemonRunning, info.PID, info.WorkTree)}
	}
	logger := log.New(g.stderr, "turnback watch: ", log.LstdFlags)
	opts := turnback.Options{Store: storeDir, Force: g.force,
		Holder: fmt.Sprintf("turnback watch (pid %d) in %s", os.Getpid(), workTree),
		OnWait: func(holder string) { logger.Printf("waiting for the store, held by %s", holder) }}
	if err := limitsFromEnv(g.getenv, &opts); err != nil {
		return usageError{err}
	}
	repo, err := turnback.Open(ctx, workTree, opts)
	if err != nil {
		if _, ok := daemon.Ping(storeDir); ok && auto && errors.Is(err, turnback.ErrBusy) {
			// Two commands that finished together both started one;
			// the other serves.
			return nil
		}
		return err
	}
	h := &daemonHandler{repo: repo}
	d := daemon.New(daemon.Config{WorkTree: repo.WorkTree(), StoreDir: repo.StoreDir(), Store: repo,
		Handler: h, Idle: idle, Logf: logger.Printf})
	h.srv = d
	// Serve at once: commands that come while the watcher starts (and
	// makes its first, full capture) wait for it instead of finding the
	// store busy.
	if err := d.Listen(); err != nil {
		repo.Close()
		return err
	}
	if g.json {
		termout.WriteJSON(g.stdout, d.Info())
	}
	logger.Printf("serving %s (pid %d, socket %s); stop with: turnback -C %s watch --stop",
		repo.WorkTree(), os.Getpid(), d.Socket(), termout.ShellQuote(repo.WorkTree()))
	var watchErr error
	watching := make(chan struct{})
	// Stopping ends the first capture too, not only the serving.
	wctx, wcancel := context.WithCancel(ctx)
	defer wcancel()
	go func() {
		select {
		case <-d.Stopped():
			wcancel()
		case <-wctx.Done():
		}
	}()
	go func() {
		defer close(watching)
		// Not idle while the first capture runs.
		if !d.Begin() {
			return
		}
		defer d.End()
		start := time.Now()
		if err := repo.Watch(wctx, turnback.WatchOptions{QueueSize: queue, Logf: logger.Printf}); err != nil {
			if wctx.Err() == nil {
				watchErr = err
				if auto {
					autowatch.NoteFailure(storeDir, err)
				}
				d.Stop("cannot watch: "+err.Error(), false)
			}
			return
		}
		if p := repo.WatchProblem(); p != "" && auto {
			// Every capture would walk the whole tree, as without a
			// daemon, which would only hold the store and memory.
			autowatch.NoteFailure(storeDir, errors.New("cannot watch every directory: "+p))
			d.Stop("cannot watch every directory: "+p, false)
			return
		}
		d.SetReady()
		autowatch.ClearFailure(storeDir)
		logger.Printf("watching every directory; the first capture took %v", time.Since(start).Round(time.Millisecond))
	}()
	err = d.Serve(ctx)
	select {
	case <-watching:
		if watchErr != nil && err == nil {
			err = watchErr
		}
	case <-time.After(daemon.CmdGrace):
		// Its first capture is stuck in the store: the process ends
		// without it.
	}
	logger.Printf("stopped after %d commands", d.Requests())
	return err
}

// errDaemonRunning: "turnback watch" found a daemon already serving the store.
var errDaemonRunning = errors.New("turnback: watch: already running")

// detach starts the daemon as a background process and waits until it
// answers on its socket.
func (g *globals) detach(cmd *cobra.Command, workTree, storeDir string, idle time.Duration, queue int) error {
	if info, ok := daemon.Ping(storeDir); ok {
		return g.reportDaemon(info, "already watching")
	}
	// Refuse what the daemon would refuse before creating its log.
	if err := turnback.CheckLocation(workTree, storeDir, g.force); err != nil {
		return err
	}
	c, logPath, start, err := autowatch.StartDaemon(workTree, storeDir, g.force, idle, queue)
	if err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if info, ok := daemon.Ping(storeDir); ok && info.PID == c.Process.Pid && info.Ready {
			return g.reportDaemon(info, "watching")
		}
		select {
		case err := <-exited:
			if info, ok := daemon.Ping(storeDir); ok {
				// Another daemon won the race.
				return g.reportDaemon(info, "already watching")
			}
			msg := strings.TrimSpace(tailFrom(logPath, start))
			if msg == "" {
				msg = fmt.Sprint(err)
			}
			return fmt.Errorf("turnback: watch: the daemon exited: %s", msg)
		case <-cmd.Context().Done():
			return cmd.Context().Err()
		case <-tick.C:
		}
	}
}

// tailFrom returns what was written to the file at path after offset.
func tailFrom(path string, offset int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return ""
	}
	data, _ := io.ReadAll(io.LimitReader(f, 8<<10))
	return string(data)
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

// stopDaemon asks the daemon to stop and waits until it has closed the
// store.
func (g *globals) stopDaemon(workTree, storeDir string) error {
	info, ok := daemon.Ping(storeDir)
	conn, connected := daemon.Dial(storeDir)
	if !ok || !connected {
		if connected {
			conn.Close()
		}
		return g.reportNoDaemon(workTree)
	}
	defer conn.Close()
	// The daemon answers once it has released the store, with the code
	// it exits with: 1 if it could not close the store (it says why in
	// its log).
	closed, err := daemon.AskStop(conn)
	if err != nil {
		return fmt.Errorf("turnback: watch --stop: %w", err)
	}
	if !closed {
		return fmt.Errorf("turnback: watch --stop: the daemon of %s (pid %d) stopped without closing the store; "+
			"its log says why (%s when it was started with --detach)", termout.QuotePath(info.WorkTree), info.PID, termout.QuotePath(filepath.Join(storeDir, "watch.log")))
	}
	if g.json {
		termout.WriteJSON(g.stdout, map[string]any{"running": false, "stopped": info.PID, "work_tree": info.WorkTree})
	} else {
		fmt.Fprintf(g.stdout, "stopped the watch daemon of %s (pid %d)\n", termout.QuotePath(info.WorkTree), info.PID)
	}
	return nil
}
