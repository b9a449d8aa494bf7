package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/envopt"
	daemons "github.com/turnback/turnback/internal/daemon"
)

func newWatchCmd(g *globals) *cobra.Command {
	var detach, stop, status, auto, list, stopAll bool
	var underDir string
	var idle time.Duration
	var queue int
	cmd := &cobra.Command{
		Use:   "watch [--detach] [--idle-timeout DUR] | watch --stop | watch --status | watch --list | watch --stop-all",
		Short: "Keep the store open and watch the folder, so every command costs only what changed",
		RunE: func(cmd *cobra.Command, args []string) error {
			n := 0
			for _, on := range []bool{stop, detach, status, list, stopAll} {
				if on {
					n++
				}
			}
			if n > 1 {
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
				return daemons.List(g.stdout, underDir, g.json, g.location())
			case stopAll:
				n, err := daemons.StopAll(g.stdout, g.stderr, underDir, g.json)
				if err == nil && n > 0 {
					err = codedError{code: exitError, err: fmt.Errorf("turnback: watch --stop-all: %d daemons still run", n)}
				}
				return err
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
				daemons.PrintStatus(g.stdout, workTree, storeDir, g.json)
				return nil
			case stop:
				return daemons.StopPrint(g.stdout, workTree, storeDir, g.json)
			case detach:
				return daemons.DetachPrint(cmd.Context(), g.stdout, workTree, storeDir, g.force, idle, queue, g.json)
			}
			return g.runDaemon(cmd, workTree, storeDir, idle, queue, auto, "")
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

// runDaemon is watch without --detach: the daemon runs in this process.
func (g *globals) runDaemon(cmd *cobra.Command, workTree, storeDir string, idle time.Duration, queue int, auto bool, listen string) error {
	o := daemons.Options{WorkTree: workTree, Options: turnback.Options{Store: storeDir, Force: g.force}, Idle: idle, Queue: queue, Auto: auto, Log: g.stderr,
		Listen: listen, EarlyPID: daemons.EarlyPID(g.getenv), Built: daemons.BuiltPipe}
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

// newServeCmd is serve (see daemons.NewServeCmd).
func newServeCmd(g *globals) *cobra.Command {
	return daemons.NewServeCmd(func() (string, string, error) { wt, st, _, err := g.locate(); return wt, st, err },
		func(cmd *cobra.Command, workTree, storeDir string, idle time.Duration, listen string) error {
			return g.runDaemon(cmd, workTree, storeDir, idle, 0, false, listen)
		}, func() (io.Writer, bool, bool) { return g.stdout, g.json, g.force })
}
