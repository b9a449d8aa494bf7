package turnback

// The Repo of a store a daemon serves (Open without Options.Local): its
// methods run in the daemon through the HTTP API on the daemon's unix
// socket (internal/daemon serves it; internal/api is the client), and
// return the values and errors they would return here. A daemon that
// is gone (stopped idle, say) before a call reaches it hands the call
// over to this process, which opens the store itself, once, and keeps
// it until Close.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/turnback/turnback/internal/api"
	"github.com/turnback/turnback/watch/daemon"
)

// errRemote: a method the daemon does not run for other processes.
var errRemote = errors.New("turnback: not available on a Repo served by a daemon (open it with Options.Local to wait for the store instead)")

// errNotServed: nothing ran; the daemon is gone or stopping.
var errNotServed = errors.New("turnback: the daemon does not serve the store")

// ErrDaemonLost: the daemon that took a call ended, or the connection
// to it broke, before it answered (see internal/api).
var ErrDaemonLost = api.ErrDaemonLost

// DaemonStoppedError is the error of an operation that the daemon
// running it cancelled as it stopped at once; Err is the operation's
// own error.
type DaemonStoppedError = api.DaemonStoppedError

// remoteConn is what every view of a daemon-served Repo shares.
type remoteConn struct {
	api                *api.Client
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

// openRemote returns a Repo whose methods the daemon serving storeDir
// runs, ok false when no daemon serves it over HTTP.
func openRemote(ctx context.Context, wt, storeDir string, opts Options) (*Repo, bool, error) {
	sock := daemon.SocketPath(storeDir)
	if fi, err := os.Lstat(sock); err != nil || fi.Mode()&os.ModeSocket == 0 {
		return nil, false, nil
	}
	c := &remoteConn{api: api.New(wt, storeDir), workTree: wt, storeDir: storeDir, opts: opts}
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
	c.api.Close()
	if c.local != nil {
		return c.local.Close()
	}
	return nil
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
			if !errors.Is(err, api.ErrNotServed) {
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

// req is what the view's next request carries besides its body: the
// test clock, the pick, and the counters and hook its Options ask for.
func (rm *remoteRepo) req() api.Call {
	cl := api.Call{Session: rm.opts.Session, Header: http.Header{}, Progress: rm.opts.Progress,
		RestoreProgress: rm.opts.RestoreProgress, Hook: rm.r.hook}
	if rm.opts.Now != nil {
		cl.Header.Set(daemon.TestNowHeader, rm.opts.Now().Format(time.RFC3339Nano))
	}
	if rm.pickPending() {
		cl.Header.Set(daemon.PickHeader, map[bool]string{false: "latest", true: "latest-reading"}[rm.pick.reading])
		cl.Seen = rm.readPicked
	}
	return cl
}

func (rm *remoteRepo) writable() error {
	if rm.opts.Access == AccessRead {
		return fmt.Errorf("%w: opened read-only", ErrReadOnly)
	}
	return nil
}
