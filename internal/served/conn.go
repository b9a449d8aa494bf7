package served

// The Repo of a store a daemon serves (turnback.Open without
// Options.Local): its methods run in the daemon through the HTTP API on
// the daemon's unix socket (internal/daemon serves it; internal/api is
// the client), and return the values and errors they would return here.
// A daemon that is gone (stopped idle, say) before a call reaches it
// hands the call over to this process, which opens the store itself,
// once, and keeps it until Close.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/turnback/turnback/internal/api"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/restore"
	"github.com/turnback/turnback/walker"
	"github.com/turnback/turnback/watch/daemon"
)

// Backend runs the operations of one view (a session) of a Repo: the
// root's localRepo in this process, View in the daemon.
type Backend interface {
	Snap(ctx context.Context, o model.SnapOptions) (*model.SnapResult, error)
	End(ctx context.Context) (*model.SnapResult, error)
	Undo(ctx context.Context, n int, o model.UndoOptions) (*model.RestoreResult, error)
	Redo(ctx context.Context, n int, o model.RedoOptions) (*model.RestoreResult, error)
	Restore(ctx context.Context, id string, o model.RestoreOptions) (*model.RestoreResult, error)
	Status(ctx context.Context, o model.StatusOptions) (*model.StatusResult, error)
	Show(ctx context.Context, id string) (*model.SnapshotInfo, error)
	Diff(ctx context.Context, a, b string) (*model.DiffResult, error)
	Turns(ctx context.Context) (turns, redo []*model.Turn, err error)
	Sessions(ctx context.Context) ([]model.SessionInfo, error)
	FindSession(ctx context.Context, name string) (string, error)
	LatestSession(ctx context.Context) (model.SessionInfo, error)
	Verify(ctx context.Context) (*model.VerifyResult, error)
	GC(ctx context.Context, o model.GCOptions) (*model.GCResult, error)
	Info(ctx context.Context) (*model.Info, error)
	AllTurns(ctx context.Context) ([]model.SessionTurns, error)
	UnprotectedChanges(ctx context.Context, turns []*model.Turn) (map[int][]string, error)
	TurnChanges(ctx context.Context, n int, content bool) (*model.TurnChanges, error)
	Recover(ctx context.Context, rollback bool) (*model.RecoverResult, error)
	CheckpointList(ctx context.Context) ([]model.Checkpoint, error)
}

// Local is the store this process opened itself once the daemon was
// gone (a *turnback.Repo).
type Local interface {
	LatestSession(ctx context.Context) (model.SessionInfo, error)
	Close() error
}

// Store is what a Conn takes from the root's Open.
type Store struct {
	// Wait bounds the waits for the store a stopping daemon releases:
	// the longer of turnback.DefaultLockWait and Options.LockWait.
	Wait time.Duration
	// Open opens the store here, waiting up to wait for it (Open with
	// Options.Local and LockWait wait).
	Open func(ctx context.Context, wait time.Duration) (Local, error)
	// TreePaths makes paths relative to dir relative to the folder
	// (turnback.Repo.TreePaths).
	TreePaths func(dir string, paths []string) ([]string, error)
}

// Options are what a view's requests carry from its Repo.
type Options struct {
	Session, Agent string
	ReadOnly       bool // opened with AccessRead
	// LockWait is how long a request waits for another client's
	// operation in the daemon (daemon.LockWaitHeader); negative: the
	// daemon's own wait.
	LockWait        time.Duration
	Now             func() time.Time
	Progress        *walker.Progress
	RestoreProgress *restore.Progress
	// Hook points at the Repo's restore hook; each request reads it.
	Hook *func(step string) error
	// Picked makes the Repo work on the session the daemon picked.
	Picked func(session string)
	// Local returns the Repo's view of the local store.
	Local func(l Local) (Backend, error)
}

// Conn is what every view of a daemon-served Repo shares.
type Conn struct {
	api   *api.Client
	store Store

	mu     sync.Mutex
	closed bool
	local  Local // opened once the daemon is gone
}

// View is one view (session) of a daemon-served Repo.
type View struct {
	c    *Conn
	opts Options
	pick *pickState // a PickLatest view's (pick.go)
}

// Dial returns the connection to the daemon serving storeDir for the
// folder wt, ok false when no daemon serves it over HTTP.
func Dial(wt, storeDir string, s Store) (*Conn, bool) {
	sock := daemon.SocketPath(storeDir)
	if fi, err := os.Lstat(sock); err != nil || fi.Mode()&os.ModeSocket == 0 {
		return nil, false
	}
	c := &Conn{api: api.New(wt, storeDir), store: s}
	if !daemon.Answers(storeDir) {
		// No daemon (a socket left by one killed), or one stopping:
		// Open waits for the store as for any holder. Every request
		// names the folder and store it is for (send), and a daemon
		// that serves others runs none: the call then opens the store
		// here, which says what is wrong.
		return nil, false
	}
	return c, true
}

// View returns a view of c with o.
func (c *Conn) View(o Options) *View { return &View{c: c, opts: o} }

// View returns a view of the same Repo with o.
func (v *View) View(o Options) *View { return v.c.View(o) }

// Served reports that a daemon runs the operations.
func (v *View) Served() bool { return true }

// Close closes the connection and the local store; a view's Close
// does nothing.
func (v *View) Close(view bool) error {
	if view {
		return nil
	}
	c := v.c
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
func (v *View) local(ctx context.Context) (Backend, error) {
	c := v.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errors.New("turnback: repo is closed")
	}
	if c.local == nil {
		l, err := c.store.Open(ctx, fallbackStep)
		if err != nil {
			return nil, err
		}
		c.local = l
	}
	if err := v.pickLocal(ctx, c.local); err != nil {
		return nil, err
	}
	return v.opts.Local(c.local)
}

// fallbackStep is one wait for the store a stopping daemon releases;
// Store.Wait bounds them all.
const fallbackStep = 200 * time.Millisecond

// call runs a method in the daemon (remote) or, when the daemon is
// gone, here (local).
func call[T any](ctx context.Context, v *View, remote func() (T, error), local func(Backend) (T, error)) (T, error) {
	var zero T
	start := time.Now()
	for {
		v.c.mu.Lock()
		l, closed := v.c.local, v.c.closed
		v.c.mu.Unlock()
		if closed {
			return zero, errors.New("turnback: repo is closed")
		}
		if l == nil {
			val, err := remote()
			if !errors.Is(err, api.ErrNotServed) {
				return val, err
			}
		}
		lv, err := v.local(ctx)
		if err == nil {
			return local(lv)
		}
		if !errors.Is(err, model.ErrBusy) || time.Since(start) > v.c.store.Wait || ctx.Err() != nil {
			return zero, err
		}
	}
}

// req is what the view's next request carries besides its body: the
// test clock, the pick, and the counters and hook its Options ask for.
func (v *View) req() api.Call {
	cl := api.Call{Session: v.opts.Session, Header: http.Header{}, Progress: v.opts.Progress,
		RestoreProgress: v.opts.RestoreProgress, Hook: *v.opts.Hook}
	if v.opts.Now != nil {
		cl.Header.Set(daemon.TestNowHeader, v.opts.Now().Format(time.RFC3339Nano))
	}
	if v.opts.LockWait >= 0 {
		cl.Header.Set(daemon.LockWaitHeader, v.opts.LockWait.String())
	}
	if v.pickPending() {
		cl.Header.Set(daemon.PickHeader, map[bool]string{false: "latest", true: "latest-reading"}[v.pick.reading])
		cl.Seen = v.readPicked
	}
	return cl
}

func (v *View) writable() error {
	if v.opts.ReadOnly {
		return fmt.Errorf("%w: opened read-only", model.ErrReadOnly)
	}
	return nil
}
