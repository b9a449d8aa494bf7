package daemon

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

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/diag"
	"github.com/turnback/turnback/cmd/turnback/termout"
	wd "github.com/turnback/turnback/watch/daemon"
)

// Options say what Run serves and how.
type Options struct {
	WorkTree string
	// Options open the store: Store must be set (and absolute); Holder
	// and OnWait are Run's. Configure, if set, completes them once no
	// daemon is found serving the store; its error is Run's.
	Options   turnback.Options
	Configure func(*turnback.Options) error
	Idle      time.Duration // stop after this long idle (0: never)
	Queue     int           // the watcher's event queue (0: its default)
	Auto      bool          // started by a command
	Log       io.Writer     // the daemon's log
	JSON      io.Writer     // if not nil, where the daemon's Info goes once it listens
	// Listen: a loopback TCP address to serve the HTTP API on too, with
	// the store's bearer token (turnback serve --listen).
	Listen string
	// EarlyPID: the daemon was started by that process while it still
	// captures the folder, holding the store (the auto-start's Early, autostart_early.go): the
	// watcher is built first, then the store waited for (see early.go).
	EarlyPID int
	// Built, with EarlyPID, returns (from the environment getenv) the
	// descriptor and inode of the pipe through which the daemon tells
	// that process when it watches every directory (see early.go).
	Built func(getenv func(string) string) (fd int, ino uint64, ok bool)
}

// ErrRunning: a daemon already serves the store.
var ErrRunning = errors.New("turnback: watch: already running")

// Run runs a watch daemon for o.WorkTree in this process until it
// stops (see package daemon), logging to o.Log. With o.Auto (started by
// a command, see autostart.go) a daemon already serving the store
// is not an error, and a failure to watch keeps commands from starting
// another for a while.
func Run(ctx context.Context, o Options) error {
	workTree, storeDir, auto := o.WorkTree, o.Options.Store, o.Auto
	if !auto {
		o.EarlyPID = 0 // only a daemon a command started is started early
	}
	if info, ok := wd.Ping(storeDir); ok {
		if auto {
			return nil
		}
		return fmt.Errorf("%w: pid %d already watches %s (and serves the HTTP API on its socket %s)", ErrRunning, info.PID, info.WorkTree, info.Socket)
	}
	var token string
	if o.Listen != "" {
		if _, err := wd.CheckLoopback(o.Listen); err != nil {
			return watchError(err)
		}
	}
	logger := log.New(o.Log, "turnback watch: ", log.LstdFlags)
	opts := o.Options
	if o.Configure != nil {
		if err := o.Configure(&opts); err != nil {
			return err
		}
	}
	opts.Holder = fmt.Sprintf("turnback watch (pid %d) in %s", os.Getpid(), workTree)
	opts.OnWait = func(holder string) { logger.Printf("waiting for the store, held by %s", holder) }
	opts.Local = true
	var built *turnback.Watcher
	if o.EarlyPID > 0 {
		b, err := buildEarly(ctx, o, storeDir, logger.Printf, &opts)
		if err != nil {
			if auto {
				NoteFailure(storeDir, err)
			}
			return watchError(err)
		}
		built = b
	}
	// closeBuilt closes the watcher built early on the ways out before
	// Watch takes it over.
	closeBuilt := func() {
		if built != nil {
			built.Close()
		}
	}
	opened := time.Now()
	repo, err := turnback.Open(ctx, workTree, opts)
	openTook := time.Since(opened)
	if err != nil {
		closeBuilt()
		if _, ok := wd.Ping(storeDir); ok && auto && errors.Is(err, turnback.ErrBusy) {
			// Two commands that finished together both started one;
			// the other serves.
			return nil
		}
		return err
	}
	// The tests' fault injection, from the daemon's environment (its
	// restores run here; package diag).
	diag.InstallFaults(repo, os.Getenv, o.Log)
	if o.Listen != "" {
		if token, err = wd.LoadToken(repo.StoreDir(), true); err != nil {
			repo.Close()
			closeBuilt()
			return watchError(err)
		}
	}
	d := NewServer(ServerConfig{WorkTree: repo.WorkTree(), StoreDir: repo.StoreDir(), Store: repo,
		Idle: o.Idle, Logf: logger.Printf, HTTP: NewHandler(repo), Listen: o.Listen, Token: token})
	// Serve at once: commands that come while the watcher starts (and
	// makes its first, full capture) wait for it instead of finding the
	// store busy.
	if err := d.Listen(); err != nil {
		repo.Close()
		closeBuilt()
		return watchError(err)
	}
	if o.JSON != nil {
		termout.WriteJSON(o.JSON, d.Info())
	}
	logger.Printf("serving %s (pid %d, socket %s); stop with: turnback -C %s watch --stop",
		repo.WorkTree(), os.Getpid(), d.Socket(), termout.ShellQuote(repo.WorkTree()))
	if in := d.Info(); in.Listen != "" {
		logger.Printf("serving the HTTP API on http://%s/v1/ (bearer token: turnback serve --print-token)", in.Listen)
	}
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
			closeBuilt()
			return
		}
		defer d.End()
		var ph turnback.WatchPhases
		if err := repo.Watch(wctx, turnback.WatchOptions{QueueSize: o.Queue, Logf: logger.Printf, Phases: &ph, Watcher: built}); err != nil {
			if wctx.Err() == nil {
				watchErr = err
				if auto {
					NoteFailure(storeDir, err)
				}
				d.Stop("cannot watch: "+err.Error(), false)
			}
			return
		}
		if p := repo.WatchProblem(); p != "" && auto {
			// Every capture would walk the whole tree, as without a
			// daemon, which would only hold the store and memory.
			NoteFailure(storeDir, errors.New("cannot watch every directory: "+p))
			d.Stop("cannot watch every directory: "+p, false)
			return
		}
		d.SetReady()
		ClearFailure(storeDir)
		if built != nil {
			// The open waited for the command that started the daemon.
			logger.Printf("watching every directory, ready %v after the store was open: waited for it %v, %v",
				time.Since(opened.Add(openTook)).Round(time.Millisecond), openTook.Round(time.Millisecond), ph)
			return
		}
		logger.Printf("watching every directory, ready in %v: open %v, %v",
			time.Since(opened).Round(time.Millisecond), openTook.Round(time.Millisecond), ph)
	}()
	err = watchError(d.Serve(ctx))
	select {
	case <-watching:
		if watchErr != nil && err == nil {
			err = watchErr
		}
	case <-time.After(CmdGrace):
		// Its first capture is stuck in the store: the process ends
		// without it.
	}
	logger.Printf("stopped after %d commands", d.Requests())
	return err
}

// Detach starts a daemon as a background process (see
// StartDaemon) and waits until it answers on its socket,
// ready. It returns the daemon that serves the store, and whether it is
// one that was already running.
func Detach(ctx context.Context, workTree, storeDir string, force bool, idle time.Duration, queue int) (*wd.Info, bool, error) {
	if info, ok := wd.Ping(storeDir); ok {
		return info, true, nil
	}
	// Refuse what the daemon would refuse before creating its log.
	if err := turnback.CheckLocation(workTree, storeDir, force); err != nil {
		return nil, false, err
	}
	c, logPath, start, err := StartDaemon(workTree, storeDir, force, idle, queue)
	if err != nil {
		return nil, false, err
	}
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if info, ok := wd.Ping(storeDir); ok && info.PID == c.Process.Pid && info.Ready {
			return info, false, nil
		}
		select {
		case err := <-exited:
			if info, ok := wd.Ping(storeDir); ok {
				// Another daemon won the race.
				return info, true, nil
			}
			msg := strings.TrimSpace(tailFrom(logPath, start))
			if msg == "" {
				msg = fmt.Sprint(err)
			}
			return nil, false, fmt.Errorf("turnback: watch: the daemon exited: %s", msg)
		case <-ctx.Done():
			return nil, false, ctx.Err()
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

// StopOne asks the daemon of storeDir to stop and waits until it has
// closed the store. It returns the daemon it stopped, nil if none ran.
func StopOne(storeDir string) (*wd.Info, error) {
	info, ok := wd.Ping(storeDir)
	conn, connected := wd.Dial(storeDir)
	if !ok || !connected {
		if connected {
			conn.Close()
		}
		return nil, nil
	}
	defer conn.Close()
	// The daemon answers once it has released the store, with the code
	// it exits with: 1 if it could not close the store (it says why in
	// its log).
	closed, err := wd.AskStop(conn)
	if err != nil {
		return nil, fmt.Errorf("turnback: watch --stop: %w", err)
	}
	if !closed {
		return nil, fmt.Errorf("turnback: watch --stop: the daemon of %s (pid %d) stopped without closing the store; "+
			"its log says why (%s when it was started with --detach)", termout.QuotePath(info.WorkTree), info.PID, termout.QuotePath(filepath.Join(storeDir, "watch.log")))
	}
	return info, nil
}

// watchError words an error of package daemon ("daemon: ...") as the
// watch command says it ("turnback: watch: ..."); others are left as
// they are.
func watchError(err error) error {
	if err == nil || !strings.HasPrefix(err.Error(), "daemon: ") {
		return err
	}
	return worded{err}
}

type worded struct{ err error }

func (e worded) Error() string {
	return "turnback: watch: " + strings.TrimPrefix(e.err.Error(), "daemon: ")
}
func (e worded) Unwrap() error { return e.err }

// PrintToken is serve --print-token: with print, it prints the store's
// bearer token for TCP clients (--json: {"token"}), making one when
// there is none.
func PrintToken(w io.Writer, workTree, storeDir string, force, print, asJSON bool) error {
	if !print {
		return nil
	}
	// The token may come before the store: refuse what Open refuses.
	if err := turnback.CheckLocation(workTree, storeDir, force); err != nil {
		return err
	}
	if err := os.MkdirAll(storeDir, 0o700); err != nil {
		return fmt.Errorf("turnback: serve: %w", err)
	}
	tok, err := wd.LoadToken(storeDir, true)
	if err != nil {
		return watchError(err)
	}
	if asJSON {
		termout.WriteJSON(w, map[string]string{"token": tok})
	} else {
		fmt.Fprintln(w, tok)
	}
	return nil
}
