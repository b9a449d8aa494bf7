package turnback

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/walker"
	"github.com/turnback/turnback/watch"
)

// WatchOptions configure Repo.Watch.
type WatchOptions struct {
	// QueueSize bounds the watcher's queue of unhandled events (0: the
	// watch package's default); beyond it the next capture reads
	// everything.
	QueueSize int
	// Logf, if set, hears about the watcher's doubts and rebuilds.
	Logf func(format string, args ...any)
}

// WatchInfo says how a capture of a watching Repo read the tree.
type WatchInfo struct {
	// Incremental: only directories the watcher reported were read.
	Incremental bool `json:"incremental"`
	// FullWalk says why the whole tree was read instead.
	FullWalk string `json:"full_walk,omitempty"`
	// DirsRead and DirsReused count the directories listed and those
	// taken unread from the previous capture.
	DirsRead   int64 `json:"dirs_read"`
	DirsReused int64 `json:"dirs_reused"`
}

// watchState is the bookkeeping of a watching Repo, guarded by the
// store's mutex.
type watchState struct {
	w      *watch.Watcher
	cancel context.CancelFunc
	// base is the root of the last capture; the watcher's changes since
	// it was taken are in pending (merged until a capture succeeds).
	base          cas.Hash
	sizeLimit     int64
	largeDirFiles int
	pending       watch.Changes
	totals        *walker.TreeTotals
}

// Watch starts a watcher on the work tree: from then on every capture
// of this Repo (and of its views) reads only the directories where
// something happened since the previous capture, and the whole tree when
// the watcher cannot vouch for that (the first capture, an event queue
// overflow, the inotify watch limit, an ignore file that changed...;
// WatchInfo says which). Watch itself captures the tree once (recording
// nothing), so that the next capture is incremental already. Watching
// lasts until Close. It is meant for a process that keeps the Repo open
// across many captures.
func (r *Repo) Watch(ctx context.Context, o WatchOptions) error {
	if err := r.lock(ctx); err != nil {
		return err
	}
	defer r.unlock()
	if r.watch != nil {
		return fmt.Errorf("turnback: %s is already watched by this process", r.workTree)
	}
	cookies := filepath.Join(r.storeDir, "watch-sync")
	if err := os.MkdirAll(cookies, 0o700); err != nil {
		return fmt.Errorf("turnback: watch: %w", err)
	}
	w, err := watch.New(r.workTree, watch.Options{QueueSize: o.QueueSize, CookieDir: cookies, Logf: o.Logf})
	if err != nil {
		return fmt.Errorf("turnback: %w", err)
	}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	if err := w.Start(wctx); err != nil {
		cancel()
		w.Close()
		return fmt.Errorf("turnback: %w", err)
	}
	r.watch = &watchState{w: w, cancel: cancel, totals: walker.NewTreeTotals()}
	// A first full capture now, so that the first command is incremental
	// already. It records nothing.
	if _, err := r.capture(ctx); err != nil {
		r.stopWatch()
		return err
	}
	// And count its trees now (an incremental capture adds up the trees
	// it reuses; on a large tree the first count loads every tree).
	if err := r.countBase(ctx); err != nil {
		r.stopWatch()
		return err
	}
	return nil
}

// WatchProblem says why the watcher of a watching Repo (see Watch) could
// not watch every directory the last time it built its watches (the
// inotify watch limit, say), "" if it could or the Repo is not watching.
// Until it can, every capture walks the whole tree.
func (r *Repo) WatchProblem() string {
	r.hold()
	defer r.unlock()
	if r.watch == nil {
		return ""
	}
	return r.watch.w.Problem()
}

// countBase fills the watch state's tree totals for its base, by an
// incremental capture that reuses everything and records nothing.
func (r *Repo) countBase(ctx context.Context) error {
	ws := r.watch
	root, err := os.OpenRoot(r.workTree)
	if err != nil {
		return fmt.Errorf("turnback: open work tree: %w", err)
	}
	defer root.Close()
	_, err = walker.Capture(ctx, root, r.store, walker.Options{
		SizeLimit: ws.sizeLimit, LargeDirFiles: ws.largeDirFiles, Cache: r.cache,
		Base: ws.base, Previous: ws.base, Totals: ws.totals,
		Dirty: func(string) bool { return false },
	})
	if err != nil {
		return fmt.Errorf("turnback: count %s: %w", r.workTree, err)
	}
	return nil
}

// stopWatch ends watching; the caller holds the mutex.
func (r *Repo) stopWatch() {
	if ws := r.watch; ws != nil {
		ws.cancel()
		ws.w.Close()
		r.watch = nil
	}
}

// planWatched takes the watcher's changes and sets opts up for an
// incremental capture when they can be trusted.
func (r *Repo) planWatched(ctx context.Context, ws *watchState, opts *walker.Options) *WatchInfo {
	info := &WatchInfo{}
	if err := ws.w.Sync(ctx); err != nil {
		// Without the marker, events of the last changes may still be
		// on their way.
		ws.pending.Merge(watch.Changes{Full: true, Reason: "could not sync with the watcher: " + err.Error()})
	}
	ws.pending.Merge(ws.w.Take())
	switch {
	case ws.pending.Full:
		info.FullWalk = ws.pending.Reason
	case ws.base.IsZero():
		info.FullWalk = "no earlier capture while watching"
	case ws.sizeLimit != r.opts.SizeLimit || ws.largeDirFiles != r.opts.LargeDirFiles:
		info.FullWalk = "capture settings (size limit or large-directory rule) differ from the previous capture's"
	default:
		info.Incremental = true
		opts.Base, opts.Previous, opts.Dirty, opts.Totals = ws.base, ws.base, ws.pending.Dirty(), ws.totals
	}
	return info
}
