package turnback

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/handoff"
	"github.com/turnback/turnback/internal/storedir"
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
	// Phases, if set, is filled with what Watch's start-up took.
	Phases *WatchPhases
	// Watcher, if set, is a watcher StartWatcher built before the store
	// was open: Watch takes it over (and closes it when the Repo
	// closes, or when Watch fails) instead of building one. Its
	// QueueSize and Logf were given to StartWatcher.
	Watcher *Watcher
}

// Watcher is a watcher built by StartWatcher, for Repo.Watch.
type Watcher struct {
	w        *watch.Watcher
	workTree string
	build    time.Duration
}

// StartWatcher watches every directory of workTree, whose store is
// storeDir, without opening the store: a watch daemon started by a
// command that still holds the store (a first capture) builds its
// watches while that command runs, then opens the store and hands the
// watcher to Repo.Watch, which then only makes the first capture. Every
// directory is watched when it returns, so a capture that starts later
// is a valid base (see Repo.Watch). The caller closes the Watcher if it
// does not hand it over.
func StartWatcher(ctx context.Context, workTree, storeDir string, o WatchOptions) (*Watcher, error) {
	wt, err := storedir.Canonical(workTree)
	if err != nil {
		return nil, err
	}
	cookies := filepath.Join(storeDir, "watch-sync")
	if err := os.MkdirAll(cookies, 0o700); err != nil {
		return nil, fmt.Errorf("turnback: watch: %w", err)
	}
	w, err := watch.New(wt, watch.Options{QueueSize: o.QueueSize, CookieDir: cookies, Logf: o.Logf})
	if err != nil {
		return nil, fmt.Errorf("turnback: %w", err)
	}
	start := time.Now()
	if err := w.Start(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("turnback: %w", err)
	}
	if err := ctx.Err(); err != nil {
		w.Close() // the build stopped part way
		return nil, err
	}
	return &Watcher{w: w, workTree: wt, build: time.Since(start)}, nil
}

// Close stops a Watcher that was not handed to Repo.Watch.
func (w *Watcher) Close() error { return w.w.Close() }

// WatchPhases is what Repo.Watch's start-up took.
type WatchPhases struct {
	// Build: watching every directory (the watcher's walk), Yielded
	// included: the time the build waited for operations of other views
	// (see maxYield).
	Build, Yielded time.Duration
	// Capture: Watch's own first capture (zero when a command made a
	// full capture after the build, which then serves as the base).
	Capture time.Duration
	// Count: counting the base's trees (zero when the capture counted
	// them as it wrote them).
	Count time.Duration
	// ByCommand: the base is a command's capture, not Watch's own.
	ByCommand bool
	// Commands: captures commands made while the watcher was built
	// (each a full walk).
	Commands int
	// Handoff: the base is the capture of the command that started the
	// daemon, handed over (handoff.go); HandoffDirs directories it
	// listed before every directory was watched are read again by the
	// first capture. NoHandoff says why a watcher built before the
	// store was open (WatchOptions.Watcher) got no handoff.
	Handoff     bool
	HandoffDirs int
	NoHandoff   string
}

// String is the one-line breakdown the daemon logs.
func (p WatchPhases) String() string {
	first := p.Capture.Round(time.Millisecond).String()
	switch {
	case p.Handoff:
		first = fmt.Sprintf("none (the command that started the daemon handed its capture over; the next capture reads again the %d directories it listed before every directory was watched)", p.HandoffDirs)
	case p.ByCommand:
		first = "none (a command's capture after the build is the base)"
	case p.NoHandoff != "":
		first += " (" + p.NoHandoff + ")"
	}
	return fmt.Sprintf("watcher build %v (%v of it waiting for commands), first capture %s, count %v; %d captures by commands during the build",
		p.Build.Round(time.Millisecond), p.Yielded.Round(time.Millisecond), first, p.Count.Round(time.Millisecond), p.Commands)
}

// watchState is the bookkeeping of a watching Repo, guarded by the
// store's mutex.
type watchState struct {
	w      *watch.Watcher
	cancel context.CancelFunc
	// built: the watcher watches every directory (Start returned);
	// until then captures are full walks and never ask the watcher
	// anything, so that none of them becomes the base of an
	// incremental capture.
	built bool
	// took: a capture took the watcher's changes once built. When it
	// succeeded, pending is not Full (the first Take is) and base is a
	// full capture made after the build: a trusted base (see package
	// watch: Take's changes are those since the previous Take).
	took bool
	// early counts the captures made before built.
	early int
	// base is the root of the last capture; the watcher's changes since
	// it was taken are in pending (merged until a capture succeeds).
	base          cas.Hash
	sizeLimit     int64
	largeDirFiles int
	pending       watch.Changes
	totals        *walker.TreeTotals
}

// watchStep, set by tests, is called by Watch (work tree, step) where
// other operations may run: "build" before the watcher's build, "built"
// after it, before Watch takes the store lock again; and "yield" when
// the build waits for an operation (yieldToOps).
var watchStep func(workTree, step string)

// watchStarting is the FullWalk reason of a capture made while the
// watcher is still being built.
const watchStarting = "the watcher is still starting"

// Watch starts a watcher on the work tree: from then on every capture
// of this Repo (and of its views) reads only the directories where
// something happened since the previous capture, and the whole tree when
// the watcher cannot vouch for that (the first capture, an event queue
// overflow, the inotify watch limit, an ignore file that changed...;
// WatchInfo says which). Watch returns once the next capture can be
// incremental: the watcher watches every directory and a full capture
// made after that is the base. It holds the store lock for neither
// the watcher's build nor longer than that capture: operations of other
// views run meanwhile (their captures read the whole tree, as without a
// watcher), and when one of them made a full capture after the build,
// that capture is the base and Watch captures nothing itself (it records
// nothing either way). Watching lasts until Close. It is meant for a
// process that keeps the Repo open across many captures.
func (r *Repo) Watch(ctx context.Context, o WatchOptions) error {
	ph := o.Phases
	if ph == nil {
		ph = &WatchPhases{}
	}
	// A watcher given and not taken over is closed.
	drop := func() {
		if o.Watcher != nil {
			o.Watcher.Close()
		}
	}
	if err := r.lock(ctx); err != nil {
		drop()
		return err
	}
	if r.watch != nil {
		r.unlock()
		drop()
		return fmt.Errorf("turnback: %s is already watched by this process", r.workTree)
	}
	// A daemon writes for as long as it runs: Badger for writing.
	if err := r.backend.Upgrade(); err != nil {
		r.unlock()
		drop()
		return fmt.Errorf("turnback: watch: %w", err)
	}
	var w *watch.Watcher
	var err error
	if o.Watcher != nil {
		if o.Watcher.workTree != r.workTree {
			r.unlock()
			drop()
			return fmt.Errorf("turnback: watch: the watcher given watches %s, not %s", o.Watcher.workTree, r.workTree)
		}
		w, ph.Build = o.Watcher.w, o.Watcher.build
	} else {
		cookies := filepath.Join(r.storeDir, "watch-sync")
		if err := os.MkdirAll(cookies, 0o700); err != nil {
			r.unlock()
			return fmt.Errorf("turnback: watch: %w", err)
		}
		w, err = watch.New(r.workTree, watch.Options{QueueSize: o.QueueSize, CookieDir: cookies, Logf: o.Logf,
			StartPause: r.yieldToOps(&ph.Yielded)})
		if err != nil {
			r.unlock()
			return fmt.Errorf("turnback: %w", err)
		}
	}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	// A watcher from StartWatcher is built: a capture a command makes
	// before Watch takes the turn again is a valid base.
	ws := &watchState{w: w, cancel: cancel, totals: walker.NewTreeTotals(), built: o.Watcher != nil}
	r.watch = ws
	r.unlock()
	if watchStep != nil {
		watchStep(r.workTree, "build")
	}
	// The build, without the store lock: captures meanwhile are full
	// walks (planWatched), and stopWatch only cancels wctx. A watcher
	// from StartWatcher is built already.
	if o.Watcher == nil {
		start := time.Now()
		stop := context.AfterFunc(ctx, cancel) // ctx ends the build too
		err = w.Start(wctx)
		stop()
		ph.Build = time.Since(start)
	}
	if watchStep != nil {
		watchStep(r.workTree, "built")
	}
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if lerr := r.lock(context.WithoutCancel(ctx)); lerr != nil {
		// Closed meanwhile.
		w.Close()
		return lerr
	}
	defer r.unlock()
	if r.watch != ws {
		w.Close()
		if err == nil {
			err = errors.New("turnback: watch: the repo was closed")
		}
		return err
	}
	if err != nil {
		r.stopWatch() // ws.built is false: w is closed here
		w.Close()
		return fmt.Errorf("turnback: %w", err)
	}
	ws.built = true
	ph.Commands = ws.early
	handErr := handoff.ErrNone
	if o.Watcher != nil && !ws.took {
		// Built before the store was open: the command that started
		// this daemon may have handed its capture over (handoff.go).
		ph.HandoffDirs, handErr = r.takeHandoff(ctx, ws)
		if handErr != nil {
			ph.NoHandoff = handErr.Error()
		}
	} else if o.Watcher != nil {
		// A command's capture is the base already: a handoff left for
		// this daemon is of no use, and must not wait for another
		// process that may get this pid (takeHandoff).
		handoff.Remove(r.storeDir)
	}
	if ws.took && !ws.pending.Full {
		ph.ByCommand = true
		ph.Handoff = handErr == nil
	} else {
		// A first full capture now, so that the first command is
		// incremental already. It records nothing.
		start := time.Now()
		if _, err := r.capture(ctx); err != nil {
			r.stopWatch()
			return err
		}
		ph.Capture = time.Since(start)
	}
	// And count its trees now, unless the capture counted them as it
	// wrote them (an incremental capture adds up the trees it reuses;
	// on a large tree the first count loads every tree).
	if !ws.totals.Has(ws.base) {
		start := time.Now()
		if err := r.countBase(ctx); err != nil {
			r.stopWatch()
			return err
		}
		ph.Count = time.Since(start)
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

// maxYield bounds how long in all the watcher's first build waits for
// the operations that run meanwhile (so that a stream of commands does
// not keep the daemon from ever being ready). freeBuild is how long the
// build runs before it starts yielding at all: a build that short (a
// tree of some ten thousand files) finishes while the first command
// runs, at little cost to it, and the daemon is then ready for the
// next ones (a script's snap, end and undo back to back); on a larger
// tree the command would share the machine with a long build.
const maxYield = 5 * time.Second

var freeBuild = 100 * time.Millisecond // a variable for the tests

// yieldToOps is the watcher's StartPause: while an operation holds the
// store lock (a command's capture, a full walk while the watcher
// starts), the build waits, so that the command does not share the
// machine with it and costs what it would without a daemon. The wait is
// added to yielded, up to maxYield in all.
func (r *Repo) yieldToOps(yielded *time.Duration) func(context.Context) {
	const poll = 2 * time.Millisecond
	var began time.Time
	return func(ctx context.Context) {
		if began.IsZero() {
			began = time.Now()
		}
		if time.Since(began) < freeBuild {
			return
		}
		if len(r.storeLock) > 0 && *yielded < maxYield && watchStep != nil {
			watchStep(r.workTree, "yield")
		}
		for len(r.storeLock) > 0 && *yielded < maxYield {
			t := time.NewTimer(poll)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			*yielded += poll
		}
	}
}

// stopWatch ends watching; the caller holds the mutex. A watcher still
// being built is only cancelled: Watch closes it once its Start returns.
func (r *Repo) stopWatch() {
	if ws := r.watch; ws != nil {
		ws.cancel()
		if ws.built {
			ws.w.Close()
		}
		r.watch = nil
	}
}

// planWatched takes the watcher's changes and sets opts up for an
// incremental capture when they can be trusted.
func (r *Repo) planWatched(ctx context.Context, ws *watchState, opts *walker.Options) *WatchInfo {
	info := &WatchInfo{}
	// Full captures count their trees as they write them (so that the
	// next incremental capture loads none of them to count them).
	opts.Totals = ws.totals
	if !ws.built {
		// The watcher is not asked: a Take now would start the changes
		// of the next incremental capture before every directory is
		// watched.
		ws.early++
		info.FullWalk = watchStarting
		return info
	}
	ws.took = true
	if !ws.base.IsZero() && !r.gitIdx.Current(ws.base) {
		// A "git add" may have made an ignored directory tracked: the
		// watcher, which never watched it, must judge it again.
		ws.w.Doubt("git's index changed since the last capture: tracked directories may differ")
	} else if !ws.base.IsZero() && !walker.SameIndexes(ws.w.IndexStamps(), r.gitIdx.Stamps(ws.base)) {
		// The watcher chose what to watch by another version of an
		// index than the last capture read (a "git add" in between):
		// a directory that capture found tracked may be unwatched.
		ws.w.Doubt("the watcher judged tracked directories by another version of git's index than the last capture")
	}
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
