package turnback

// A Repo's methods run on one of two backends, chosen once by Open:
// localRepo when this process holds the store, a served.View
// (internal/served) when a watch daemon holds it and runs them. Each
// exported method of Repo that a daemon serves is one call of its
// backend; the others need the store here (lock.go refuses them on a
// served Repo).

import (
	"context"
	"errors"
	"time"

	"github.com/turnback/turnback/internal/api"
	"github.com/turnback/turnback/internal/daemonop"
	"github.com/turnback/turnback/internal/served"
)

// backend runs the operations of one Repo (one view: a session).
type backend interface {
	served.Backend
	// Close releases what the Repo holds; a view's Close does nothing.
	Close(view bool) error
	// Served reports whether a daemon runs the operations.
	Served() bool
}

// localRepo runs a Repo's operations in this process, on the store it
// holds. Its methods live beside the exported ones they implement.
type localRepo struct{ r *Repo }

func (l localRepo) Served() bool { return false }

func (l localRepo) Undo(ctx context.Context, n int, o UndoOptions) (*RestoreResult, error) {
	return l.r.undo(ctx, n, o)
}

func (l localRepo) Restore(ctx context.Context, id string, o RestoreOptions) (*RestoreResult, error) {
	return l.r.restore(ctx, id, o)
}

// errRemote: a method the daemon does not run for other processes.
var errRemote = errors.New("turnback: not available on a Repo served by a daemon (open it with Options.Local to wait for the store instead)")

// ErrDaemonLost: the daemon that took a call ended, or the connection
// to it broke, before it answered (see internal/api).
var ErrDaemonLost = api.ErrDaemonLost

// DaemonStoppedError is the error of an operation that the daemon
// running it cancelled as it stopped at once; Err is the operation's
// own error.
type DaemonStoppedError = api.DaemonStoppedError

// openRemote returns a Repo whose methods the daemon serving storeDir
// runs, ok false when no daemon serves it over HTTP.
func openRemote(ctx context.Context, wt, storeDir string, opts Options) (*Repo, bool, error) {
	c, ok := served.Dial(wt, storeDir, served.Store{
		Wait: max(DefaultLockWait, opts.LockWait),
		Open: func(ctx context.Context, wait time.Duration) (served.Local, error) {
			o := opts
			o.Local, o.LockWait = true, wait
			l, err := Open(ctx, wt, o)
			if err != nil {
				return nil, err
			}
			return l, nil
		},
		TreePaths: (&Repo{repoCore: &repoCore{workTree: wt}}).TreePaths,
	})
	if !ok {
		return nil, false, nil
	}
	core := &repoCore{storeLock: make(chan struct{}, 1), workTree: wt, storeDir: storeDir}
	r := &Repo{repoCore: core, session: opts.Session, opts: opts}
	r.be = c.View(r.servedOptions())
	return r, true, nil
}

// servedOptions are what r's requests to the daemon carry.
func (r *Repo) servedOptions() served.Options {
	wait := r.opts.LockWait // as Open waits for another process
	if wait == 0 {
		wait = DefaultLockWait
	} else if wait < 0 {
		wait = 0
	}
	return served.Options{Session: r.opts.Session, Agent: r.opts.Agent, ReadOnly: r.opts.Access == AccessRead, LockWait: wait,
		Now: r.opts.Now, Progress: r.opts.Progress, RestoreProgress: r.opts.RestoreProgress, Hook: &r.hook,
		Picked: func(s string) { r.session, r.opts.Session = s, s },
		Local: func(l served.Local) (served.Backend, error) {
			v, err := l.(*Repo).View(r.opts)
			if err != nil {
				return nil, err
			}
			return v.be, nil
		}}
}

// viewOf returns the backend of v, a view of r made by View.
func (r *Repo) viewOf(v *Repo) backend {
	if s, ok := r.be.(*served.View); ok {
		return s.View(v.servedOptions())
	}
	return localRepo{v}
}

// Served reports whether a daemon runs r's methods (see Open).
func (r *Repo) Served() bool { return r.be.Served() }

// PickLatest returns a view of r, with o, on the session LatestSession
// picks. On a Repo this process holds, it picks at once. On one a
// daemon serves, the daemon picks it in the view's first operation,
// which costs no request of its own; until then the view's Session is
// o.Session. Either way onPick (if set) is called with the session
// picked before the operation that picked it returns, and an ambiguous
// pick (*AmbiguousSessionError) is the error of PickLatest or of that
// operation; with reading (a command that only reads, which never
// refuses) it is none: the view works on the session picked.
func (r *Repo) PickLatest(ctx context.Context, o Options, reading bool, onPick func(SessionInfo)) (*Repo, error) {
	if _, ok := r.be.(*served.View); !ok {
		s, err := r.LatestSession(ctx)
		if reading && errors.As(err, new(*AmbiguousSessionError)) {
			err = nil
		}
		if err != nil {
			return nil, err
		}
		if onPick != nil {
			onPick(s)
		}
		o.Session = s.Name
		return r.View(o)
	}
	v, err := r.View(o)
	if err != nil {
		return nil, err
	}
	v.be.(*served.View).Pick(reading, onPick)
	return v, nil
}

// errOpNotLocal: an operation asked of a Repo this process holds (Call
// is for served Repos; the caller runs it itself).
var errOpNotLocal = errors.New("turnback: the operation runs on a Repo a daemon serves")

func init() { daemonop.Call = callOp }

// callOp is daemonop.Call: POST /v1/ops/{name}?session=NAME, on the
// daemon's unix socket only (internal/daemon serves it).
func callOp(ctx context.Context, repo any, name string, body, out any, local func(repo any) error) error {
	s, ok := repo.(*Repo).be.(*served.View)
	if !ok {
		return errOpNotLocal
	}
	return s.Op(ctx, name, body, out, func(l served.Backend) error { return local(l.(localRepo).r) })
}
