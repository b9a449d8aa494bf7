package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/turnback/turnback"
)

// daemon is a running "turnback watch": it holds the store open, watches
// the work tree and runs the commands clients forward over its socket.
type daemon struct {
	repo     *turnback.Repo
	workTree string // as the Repo has it (symlinks resolved)
	storeDir string
	sock     string
	ln       net.Listener
	since    time.Time
	logf     func(format string, args ...any)
	idle     time.Duration

	requests atomic.Int64
	ready    atomic.Bool // watching, first capture made
	active   sync.WaitGroup
	mu       sync.Mutex
	busy     int
	lastDone time.Time
	stopOnce sync.Once
	stopped  chan struct{} // closed when the daemon is asked to stop (made by the creator)
	hardOnce sync.Once
	hard     chan struct{}           // closed when it must stop at once (made by the creator)
	cancel   context.CancelCauseFunc // cancels the commands being run
	storeID  []dirID                 // the store as the daemon opened it
	treeID   dirID                   // the work tree as the daemon opened it
	stoppers []net.Conn              // --stop clients, answered once it has stopped
	conns    map[net.Conn]struct{}
	sockID   os.FileInfo // the socket as listen made it
}

// server is one forwarded command being run by the daemon.
type server struct {
	d   *daemon
	req request
}

// view returns the Repo a forwarded command works on.
func (s *server) view(o turnback.Options) (*turnback.Repo, error) {
	if !sameDir(s.req.Store, s.d.storeDir) {
		return nil, fmt.Errorf("turnback: the watch daemon serves store %s, not %s", s.d.storeDir, s.req.Store)
	}
	if !sameDir(s.req.WorkTree, s.d.workTree) {
		return nil, fmt.Errorf("turnback: store %s belongs to work tree %s, not %s", s.d.storeDir, s.d.workTree, s.req.WorkTree)
	}
	return s.d.repo.View(o)
}

func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// listen creates the daemon's socket: bound under a temporary name and
// renamed into place once it listens, so that a client that finds the
// socket never meets one nobody listens on yet (except after a crash).
func (d *daemon) listen() error {
	if err := os.MkdirAll(filepath.Dir(d.sock), 0o700); err != nil {
		return fmt.Errorf("turnback: watch: socket directory: %w", err)
	}
	if err := checkSocketDir(filepath.Dir(d.sock)); err != nil {
		return fmt.Errorf("turnback: watch: socket directory: %w", err)
	}
	_ = os.Remove(d.sock) // a dead daemon's: this process holds the store
	tmp := fmt.Sprintf("%s.%d.tmp", d.sock, os.Getpid())
	_ = os.Remove(tmp)
	restore := privateUmask() // no window with a socket others may open
	ln, err := net.Listen("unix", tmp)
	restore()
	if err != nil {
		return fmt.Errorf("turnback: watch: listen on %s: %w", d.sock, err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	if err := os.Chmod(tmp, 0o600); err != nil {
		ln.Close()
		os.Remove(tmp)
		return fmt.Errorf("turnback: watch: %w", err)
	}
	if err := os.Rename(tmp, d.sock); err != nil {
		ln.Close()
		os.Remove(tmp)
		return fmt.Errorf("turnback: watch: %w", err)
	}
	d.ln = ln
	if fi, err := os.Lstat(d.sock); err == nil {
		d.sockID = fi
	}
	return nil
}

// serve accepts clients until ctx ends, the idle timeout passes, its
// folder or store goes or a client asks the daemon to stop; it then
// waits for the commands that run (see daemon_stop.go for how long),
// removes the socket and closes the store.
func (d *daemon) serve(ctx, rctx context.Context) error {
	done := make(chan struct{})
	defer close(done)
	go d.watchStop(ctx, done)
	backoff := time.Duration(0)
	for {
		conn, err := d.ln.Accept()
		if err != nil {
			select {
			case <-d.stopped:
			default:
				if backoff < time.Second && !errors.Is(err, net.ErrClosed) {
					// Out of descriptors, say: wait and try again.
					backoff = max(2*backoff, 5*time.Millisecond)
					d.logf("accept: %v; retrying in %v", err, backoff)
					time.Sleep(backoff)
					continue
				}
				d.stop("accept failed: "+err.Error(), false)
			}
			break
		}
		backoff = 0
		d.track(conn, true)
		d.active.Add(1)
		go func() {
			defer d.active.Done()
			defer d.track(conn, false)
			d.handle(rctx, conn)
		}()
	}
	if !d.waitActive() {
		d.logf("commands still running after %v: closing the store under them", cmdGrace)
	}
	d.removeSocket()
	err := d.closeStore()
	d.mu.Lock()
	stoppers := d.stoppers
	d.stoppers = nil
	d.mu.Unlock()
	code := "0"
	if err != nil {
		code = "1"
	}
	for _, c := range stoppers {
		_ = c.SetWriteDeadline(time.Now().Add(time.Second))
		_ = writeFrame(c, frameExit, []byte(code))
		c.Close()
	}
	return err
}

// watchStop stops the daemon when ctx ends (a signal), it has been idle
// too long, or its socket, folder or store goes; it keeps looking after
// a soft stop (a hard reason then hurries it) until done is closed.
func (d *daemon) watchStop(ctx context.Context, done <-chan struct{}) {
	tick := checkEvery
	if d.idle > 0 && d.idle/4 < tick {
		tick = max(d.idle/4, 10*time.Millisecond)
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	sig := ctx.Done()
	var goneSince time.Time // when the work tree was first found gone
	for {
		select {
		case <-done:
			return
		case <-sig:
			d.stop("signal", true)
			sig = nil
			continue
		case <-t.C:
		}
		if why := d.storeProblem(); why != "" {
			// Nothing can be captured into it, nor flushed: Badger's
			// Close would wait forever (see daemon_stop.go).
			d.stop(why, true)
			continue
		}
		if why := d.treeProblem(); why != "" {
			// Gone for a moment: a folder moved away and back at once
			// is still watched (the watcher rebuilds); one that stays
			// gone or replaced leaves nothing to watch.
			if goneSince.IsZero() {
				goneSince = time.Now()
			} else if time.Since(goneSince) >= treeGoneFor {
				d.stop(why, true)
			}
		} else {
			goneSince = time.Time{}
		}
		if why := d.socketProblem(); why != "" {
			// Removed (a temporary-file cleaner, say) or replaced:
			// nobody can reach this daemon, which still holds the
			// store. Let the store go.
			d.stop(why, false)
		}
		if d.idle <= 0 {
			continue
		}
		d.mu.Lock()
		idle := d.busy == 0 && time.Since(d.lastDone) >= d.idle
		d.mu.Unlock()
		if idle {
			d.stop(fmt.Sprintf("idle for %v", d.idle), false)
		}
	}
}

// stop makes the daemon stop: it accepts no more clients and, once the
// commands it runs have ended, closes the store. A hard stop also
// cancels those commands and waits for them only briefly; it may come
// after a soft one.
func (d *daemon) stop(why string, hard bool) {
	first := false
	d.stopOnce.Do(func() {
		first = true
		d.logf("stopping (%s)", why)
		close(d.stopped)
		d.ln.Close()
		// A client that stopped reading (a pager left open) must not
		// keep the daemon, and the store, forever: its command's output
		// gets a last stopGrace, then writes fail (the command itself
		// goes on to its end, as it would if its pipe broke).
		d.mu.Lock()
		defer d.mu.Unlock()
		for c := range d.conns {
			_ = c.SetWriteDeadline(time.Now().Add(stopGrace))
		}
	})
	if !hard {
		return
	}
	d.hardOnce.Do(func() {
		if !first {
			d.logf("stopping at once (%s)", why)
		}
		close(d.hard)
		if d.cancel != nil {
			d.cancel(errDaemonStopping{why})
		}
	})
}

// stopGrace bounds how long a stopping daemon waits for a client that
// does not read its output.
const stopGrace = 10 * time.Second

// track adds (or removes) a live connection.
func (d *daemon) track(c net.Conn, add bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.conns == nil {
		d.conns = map[net.Conn]struct{}{}
	}
	if add {
		d.conns[c] = struct{}{}
		select {
		case <-d.stopped:
			_ = c.SetWriteDeadline(time.Now().Add(stopGrace))
		default:
		}
	} else {
		delete(d.conns, c)
	}
}

func (d *daemon) info() *daemonInfo {
	in := &daemonInfo{PID: os.Getpid(), WorkTree: d.workTree, Store: d.storeDir, Socket: d.sock,
		Since: d.since, Requests: d.requests.Load(), Ready: d.ready.Load()}
	d.mu.Lock()
	if d.busy == 0 {
		in.IdleSeconds = time.Since(d.lastDone).Round(time.Millisecond).Seconds()
	}
	d.mu.Unlock()
	if d.idle > 0 {
		in.IdleTimeout = d.idle.String()
	}
	in.RSSBytes = selfRSS()
	return in
}

// handle serves one connection.
func (d *daemon) handle(ctx context.Context, conn net.Conn) {
	keep := false
	defer func() {
		if !keep {
			conn.Close()
		}
	}()
	r := bufio.NewReader(conn)
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	kind, data, err := readFrameMax(r, maxRequest)
	if err != nil || kind != frameRequest {
		return
	}
	_ = conn.SetReadDeadline(time.Time{})
	var req request
	if err := json.Unmarshal(data, &req); err != nil {
		return
	}
	switch req.Op {
	case "ping":
		info, _ := json.Marshal(d.info())
		_ = writeFrame(conn, frameInfo, info)
	case "stop":
		d.mu.Lock()
		d.stoppers = append(d.stoppers, conn)
		d.mu.Unlock()
		keep = true
		d.stop("asked by turnback watch --stop", false)
	case "run":
		d.run(ctx, conn, r, req)
	}
}

// begin counts work in progress (the daemon is not idle meanwhile); it
// returns false once the daemon is stopping. end ends what begin began.
func (d *daemon) begin() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	select {
	case <-d.stopped:
		return false
	default:
	}
	d.busy++
	return true
}

func (d *daemon) end() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.busy--
	d.lastDone = time.Now()
}

// run runs a forwarded command as the CLI would have in the client.
func (d *daemon) run(ctx context.Context, conn net.Conn, r io.Reader, req request) {
	if req.Version != wireVersion {
		// Another turnback (an upgrade, with a daemon left from before)
		// speaks another protocol: this daemon gives the store up. Not
		// accepted, the client runs the command itself once the store
		// is free (and may start a daemon of its own).
		d.stop(fmt.Sprintf("a client speaks protocol %d, this daemon %d", req.Version, wireVersion), false)
		return
	}
	if !d.begin() {
		// Not accepted: the client runs the command itself once the
		// store is free.
		return
	}
	defer d.end()
	d.requests.Add(1)
	var wmu sync.Mutex
	if writeFrame(conn, frameAccept, nil) != nil {
		return
	}
	// The client going away (interrupted, killed) cancels the command.
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		_, _ = io.Copy(io.Discard, r)
		cancel()
	}()
	env := map[string]string{}
	for _, kv := range req.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	g := &globals{
		stdout: &frameWriter{mu: &wmu, w: conn, kind: frameStdout},
		stderr: &frameWriter{mu: &wmu, w: conn, kind: frameStderr},
		args:   req.Args,
		getenv: func(k string) string { return env[k] },
		cwd:    req.Cwd,
		stdin:  bytes.NewReader(nil),
		outTTY: req.OutTTY,
		errTTY: req.ErrTTY,
		served: &server{d: d, req: req},
	}
	code := execute(cctx, g)
	var stopping errDaemonStopping
	if code != exitOK && errors.As(context.Cause(cctx), &stopping) {
		// Cancelled by a hard stop: say why, after the command's own
		// "context canceled".
		_, _ = fmt.Fprintf(g.stderr, "turnback: the watch daemon is stopping (%s): it cancelled this command\n", stopping.why)
	}
	wmu.Lock()
	_ = writeFrame(conn, frameExit, []byte(strconv.Itoa(code)))
	wmu.Unlock()
}

// errDaemonStopping is why a hard stop cancelled the commands running.
type errDaemonStopping struct{ why string }

func (e errDaemonStopping) Error() string { return "turnback: watch daemon stopping: " + e.why }

// errDaemonRunning: "turnback watch" found a daemon already serving the store.
var errDaemonRunning = errors.New("turnback: watch: already running")
