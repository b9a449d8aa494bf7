package turnback

// The Repo of a store a daemon serves (Open without Options.Local): its
// methods run in the daemon through the HTTP API on the daemon's unix
// socket (internal/daemon serves it), and return the values and errors
// they would return here. A daemon that is gone (stopped idle, say) before a call
// reaches it hands the call over to this process, which opens the store
// itself, once, and keeps it until Close.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/turnback/turnback/watch/daemon"
)

// errRemote: a method the daemon does not run for other processes.
var errRemote = errors.New("turnback: not available on a Repo served by a daemon (open it with Options.Local to wait for the store instead)")

// errNotServed: nothing ran; the daemon is gone or stopping.
var errNotServed = errors.New("turnback: the daemon does not serve the store")

// ErrDaemonLost: the daemon that took a call ended, or the connection to
// it broke, before it answered, so whether the operation ran is not
// known (an interrupted undo, redo or restore is finished or rolled
// back by the next operation on the store).
var ErrDaemonLost = errors.New("turnback: the daemon ended before the operation finished")

// DaemonStoppedError is the error of an operation that the daemon
// running it cancelled as it stopped at once (a signal; its folder or
// store gone): Err is the operation's own error.
type DaemonStoppedError struct {
	Why string // why the daemon stopped
	Err error
}

func (e *DaemonStoppedError) Error() string {
	return fmt.Sprintf("%v (the daemon is stopping: %s)", e.Err, e.Why)
}
func (e *DaemonStoppedError) Unwrap() error { return e.Err }

// lostError is ErrDaemonLost with the daemon's socket and the cause.
type lostError struct {
	socket string
	err    error
}

func (e *lostError) Error() string {
	return fmt.Sprintf("turnback: the watch daemon (%s) ended before the command finished: %v", e.socket, e.err)
}
func (e *lostError) Unwrap() []error { return []error{ErrDaemonLost, e.err} }

// remoteConn is what every view of a daemon-served Repo shares.
type remoteConn struct {
	conn               *daemon.Conn
	socket             string
	workTree, storeDir string
	opts               Options // as Open was given them

	mu     sync.Mutex
	closed bool
	local  *Repo // opened once the daemon is gone
}

// remoteRepo is one view (session) of a daemon-served Repo.
type remoteRepo struct {
	c    *remoteConn
	opts Options
	r    *Repo      // whose restore hook the daemon's steps are reported to
	pick *pickState // a PickLatest view's (api_pick.go)
}

// remoteError is an error the daemon returned: its message, and the
// sentinels callers branch on.
type remoteError struct {
	msg string
	is  []error
}

func (e *remoteError) Error() string   { return e.msg }
func (e *remoteError) Unwrap() []error { return e.is }

// openRemote returns a Repo whose methods the daemon serving storeDir
// runs, ok false when no daemon serves it over HTTP.
func openRemote(ctx context.Context, wt, storeDir string, opts Options) (*Repo, bool, error) {
	sock := daemon.SocketPath(storeDir)
	if fi, err := os.Lstat(sock); err != nil || fi.Mode()&os.ModeSocket == 0 {
		return nil, false, nil
	}
	c := &remoteConn{conn: daemon.NewConn(wt, storeDir), socket: sock, workTree: wt, storeDir: storeDir, opts: opts}
	if !daemon.Answers(storeDir) {
		// No daemon (a socket left by one killed), or one stopping:
		// Open waits for the store as for any holder. Every request
		// names the folder and store it is for (send), and a daemon
		// that serves others runs none: the call then opens the store
		// here, which says what is wrong.
		return nil, false, nil
	}
	core := &repoCore{storeLock: make(chan struct{}, 1), workTree: wt, storeDir: storeDir}
	r := &Repo{repoCore: core, session: opts.Session, opts: opts}
	r.be = &remoteRepo{c: c, opts: opts, r: r}
	return r, true, nil
}

// Served reports whether a daemon runs r's methods (see Open).
func (r *Repo) Served() bool { return r.be.served() }

func (rm *remoteRepo) served() bool { return true }

func (rm *remoteRepo) viewOf(v *Repo) backend { return &remoteRepo{c: rm.c, opts: v.opts, r: v} }

func (rm *remoteRepo) close(view bool) error {
	if view {
		return nil
	}
	c := rm.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	c.conn.Close()
	if c.local != nil {
		return c.local.Close()
	}
	return nil
}

// do sends one request and decodes the answer into out, or returns the
// error the answer carries (errNotServed when nothing ran).
func (c *remoteConn) do(ctx context.Context, method, path string, q url.Values, body, out any, hdr http.Header, seen func(http.Header)) error {
	resp, err := c.send(ctx, method, path, q, body, hdr, seen)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return c.answer(resp, out)
}

// answer decodes a one-document answer into out, or returns the error
// it carries.
func (c *remoteConn) answer(resp *http.Response, out any) error {
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return &lostError{c.socket, err}
	}
	if resp.StatusCode != http.StatusOK {
		var e ErrorResponse
		if json.Unmarshal(data, &e) != nil || e.Error == "" {
			return fmt.Errorf("turnback: the daemon serving %s answered %s", c.storeDir, resp.Status)
		}
		return e.err()
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("turnback: the daemon serving %s: %w", c.storeDir, err)
	}
	return nil
}

// send sends one request, with the headers hdr (may be nil), and
// returns the answer (errNotServed when nothing ran), whose headers
// seen (if set) is shown first.
func (c *remoteConn) send(ctx context.Context, method, path string, q url.Values, body any, hdr http.Header, seen func(http.Header)) (*http.Response, error) {
	var data []byte
	if body != nil {
		var err error
		if data, err = json.Marshal(body); err != nil {
			return nil, fmt.Errorf("turnback: api: %w", err)
		}
	}
	if hdr == nil {
		hdr = http.Header{}
	}
	hdr.Set(daemon.UnknownSessionHeader, "empty")
	resp, err := c.conn.Send(ctx, method, path, q, data, hdr)
	var lost *daemon.LostError
	switch {
	case errors.Is(err, daemon.ErrNotServed):
		return nil, errNotServed
	case errors.As(err, &lost):
		return nil, &lostError{c.socket, lost.Err}
	case err != nil && ctx.Err() != nil:
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("turnback: api: %w", err)
	}
	if seen != nil {
		seen(resp.Header)
	}
	return resp, nil
}

var apiSentinels = map[string][]error{"busy": {ErrBusy}, "unknown_id": {ErrUnknownID}, "ambiguous_id": {ErrAmbiguousID},
	"ambiguous_session": {ErrAmbiguousSession}, "unverified": {ErrUnverified}, "no_space": {ErrNoSpace}, "read_only": {ErrReadOnly},
	"invalid_meta": {ErrInvalidMeta}, "verify": {ErrVerify}, "bad_path": {ErrPath},
	"bad_ref": {ErrBadRef}, "no_turn": {ErrNoTurn, ErrUnknownID}, "open_turn": {ErrOpenTurn},
	"diverged": {ErrDiverged}, "bad_session": {ErrBadSession}, "no_session": {ErrNoSession}}

// err makes the error the daemon described into the error the method
// returns here: a *ConflictError with its result, an *UnfinishedError,
// or one that wraps the same sentinel; one the daemon's stop caused, a
// *DaemonStoppedError around it.
func (e *ErrorResponse) err() error {
	err := e.kindErr()
	if e.Stopping != "" && err != errNotServed {
		return &DaemonStoppedError{Why: e.Stopping, Err: err}
	}
	return err
}

func (e *ErrorResponse) kindErr() error {
	switch e.Kind {
	case "conflict":
		if e.Result != nil {
			if res, err := e.Result.result(); err == nil {
				return &ConflictError{Result: res}
			}
		}
		return &remoteError{msg: e.Error, is: []error{ErrConflict}}
	case "unfinished":
		return &UnfinishedError{Err: errors.New(strings.TrimPrefix(e.Error, "turnback: an undo, redo or restore stopped part way and is not finished: "))}
	case "stopping", "wrong_daemon":
		return errNotServed
	case "ambiguous_session":
		if len(e.Sessions) > 0 {
			ae := &AmbiguousSessionError{}
			for _, s := range e.Sessions {
				ae.Sessions = append(ae.Sessions, s)
			}
			return ae
		}
	}
	return &remoteError{msg: e.Error, is: apiSentinels[e.Kind]}
}

// local returns the view of a store this process opened itself, once
// the daemon is gone. The daemon may still be releasing the store (it
// stops only once its last request ended), so the open waits a moment
// for it; ErrBusy then lets the caller ask again whether a daemon
// serves (another may have started meanwhile).
func (rm *remoteRepo) local(ctx context.Context) (*Repo, error) {
	c := rm.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errors.New("turnback: repo is closed")
	}
	if c.local == nil {
		o := c.opts
		o.Local, o.LockWait = true, fallbackStep
		l, err := Open(ctx, c.workTree, o)
		if err != nil {
			return nil, err
		}
		c.local = l
	}
	if err := rm.pickLocal(ctx, c.local); err != nil {
		return nil, err
	}
	return c.local.View(rm.opts)
}

// fallbackStep is one wait for the store a stopping daemon releases;
// fallbackWait bounds them all (or Options.LockWait, when longer).
const (
	fallbackStep = 200 * time.Millisecond
	fallbackWait = DefaultLockWait
)

// call runs a method in the daemon (remote) or, when the daemon is
// gone, here (local).
func call[T any](ctx context.Context, rm *remoteRepo, remote func() (T, error), local func(*Repo) (T, error)) (T, error) {
	var zero T
	start := time.Now()
	for {
		rm.c.mu.Lock()
		l, closed := rm.c.local, rm.c.closed
		rm.c.mu.Unlock()
		if closed {
			return zero, errors.New("turnback: repo is closed")
		}
		if l == nil {
			v, err := remote()
			if !errors.Is(err, errNotServed) {
				return v, err
			}
		}
		lv, err := rm.local(ctx)
		if err == nil {
			return local(lv)
		}
		if !errors.Is(err, ErrBusy) || time.Since(start) > max(fallbackWait, rm.c.opts.LockWait) || ctx.Err() != nil {
			return zero, err
		}
	}
}

func (rm *remoteRepo) sessionPath(op string) string {
	return "/v1/sessions/" + url.PathEscape(rm.opts.Session) + "/" + op
}

func (rm *remoteRepo) writable() error {
	if rm.opts.Access == AccessRead {
		return fmt.Errorf("%w: opened read-only", ErrReadOnly)
	}
	return nil
}

func (rm *remoteRepo) snap(ctx context.Context, o SnapOptions) (*SnapResult, error) {
	if err := rm.writable(); err != nil {
		return nil, err
	}
	if err := CheckMeta(o.Meta); err != nil {
		return nil, err
	}
	return call(ctx, rm, func() (*SnapResult, error) {
		var out SnapResponse
		req := SnapRequest{Message: o.Message, Meta: o.Meta, Agent: rm.opts.Agent, TakeNotice: o.TakeNotice}
		if err := rm.do(ctx, "POST", rm.sessionPath("snap"), nil, req, &out); err != nil {
			return nil, err
		}
		return out.result()
	}, func(l *Repo) (*SnapResult, error) { return l.SnapWith(ctx, o) })
}

func (rm *remoteRepo) end(ctx context.Context) (*SnapResult, error) {
	if err := rm.writable(); err != nil {
		return nil, err
	}
	return call(ctx, rm, func() (*SnapResult, error) {
		var out SnapResponse
		if err := rm.do(ctx, "POST", rm.sessionPath("end"), nil, struct{}{}, &out); err != nil {
			return nil, err
		}
		return out.result()
	}, func(l *Repo) (*SnapResult, error) { return l.End(ctx) })
}

// restoreCall runs an undo, redo or restore; dry: a dry run, which a
// Repo opened read-only runs too.
func (rm *remoteRepo) restoreCall(ctx context.Context, path string, dry bool, body any, local func(*Repo) (*RestoreResult, error)) (*RestoreResult, error) {
	if err := rm.writable(); err != nil && !dry {
		return nil, err
	}
	return call(ctx, rm, func() (*RestoreResult, error) {
		var out RestoreResponse
		if err := rm.do(ctx, "POST", path, nil, body, &out); err != nil {
			var ce *ConflictError
			if errors.As(err, &ce) {
				return ce.Result, err
			}
			return nil, err
		}
		return out.result()
	}, local)
}

func (rm *remoteRepo) undo(ctx context.Context, n int, o UndoOptions) (*RestoreResult, error) {
	if n < 1 {
		return nil, fmt.Errorf("turnback: undo: count must be at least 1, got %d", n)
	}
	req := UndoRequest{Count: n, Force: o.Force, Paths: o.Paths, DryRun: o.DryRun, Merge: o.Merge}
	if o.Dir != "" && len(o.Paths) > 0 {
		// Paths relative to a directory: made relative to the folder
		// here, as the daemon's Repo would.
		ps, err := (&Repo{repoCore: &repoCore{workTree: rm.c.workTree}}).TreePaths(o.Dir, o.Paths)
		if err != nil {
			return nil, err
		}
		req.Paths = ps
	}
	return rm.restoreCall(ctx, rm.sessionPath("undo"), o.DryRun, req,
		func(l *Repo) (*RestoreResult, error) { return l.Undo(ctx, n, o) })
}

func (rm *remoteRepo) redo(ctx context.Context, n int, o RedoOptions) (*RestoreResult, error) {
	if n < 1 {
		return nil, fmt.Errorf("turnback: redo: count must be at least 1, got %d", n)
	}
	return withMoved(rm.restoreCall(ctx, rm.sessionPath("redo"), o.DryRun, RedoRequest{Count: n, Force: o.Force, DryRun: o.DryRun},
		func(l *Repo) (*RestoreResult, error) { return l.Redo(ctx, n, o) }))
}

func (rm *remoteRepo) restore(ctx context.Context, id string, o RestoreOptions) (*RestoreResult, error) {
	return rm.restoreCall(ctx, "/v1/restore", o.DryRun, RestoreRequest{ID: id, Session: rm.opts.Session, DryRun: o.DryRun},
		func(l *Repo) (*RestoreResult, error) { return l.Restore(ctx, id, o) })
}
