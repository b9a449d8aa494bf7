package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/turnback/turnback/walker"
	"github.com/turnback/turnback/walker/gitindex"
)

// notTaken is the reason of the first Take's doubt.
const notTaken = "first changes since watching started"

// Watcher keeps a watch on every non-ignored directory of a work tree
// and accumulates the directories that changed. See the package doc.
type Watcher struct {
	root      string // absolute, cleaned
	queueSize int
	logf      func(format string, args ...any)
	ignored   func(rel string, isDir bool) bool
	forget    func(rel string)
	// listed, for the default Ignorer, hands it a directory's listing
	// (walker.Ignorer.Listed) so it needs no lookups of its own.
	listed func(rel string, regular func(name string) bool)
	osRoot *os.Root // of the default Ignorer
	// signed: the signature verdict last read of each marker whose
	// content decides (signed.go); the loop's own.
	signed map[string]bool
	// stamps, for the default Ignorer, gives the git index versions it
	// judged by (walker.Ignorer.Stamps); set under mu.
	stamps    func() []gitindex.Stamp
	ownIgnore bool // ignored and forget are the default Ignorer's
	cookieDir string
	ownCookie bool
	queue     chan item
	kick      chan struct{}
	hook      func()                 // tests: run before each event is handled
	pause     func(context.Context)  // Options.StartPause
	inStart   bool                   // Start's build runs (owned by it)
	addHook   func(rel string) error // tests: fails an Add
	// newBackend makes the event source of each generation (see
	// backend.go): newFSNotify unless a test sets another before Start.
	newBackend func() (backend, error)

	// Owned by the loop goroutine (and by Start before it runs it).
	fsw       backend // of the current generation; nil when released
	tree      *node
	ids       map[fileID]*node // watched directories by identity (see node.id)
	building  bool             // a build is running
	badBuild  bool             // the running build could not watch everything
	badReason string           // why, the first time it could not

	cancel    context.CancelFunc
	g         *errgroup.Group
	closeOnce sync.Once

	mu         sync.Mutex
	gen        uint64 // generation of fsw; events of older ones are dropped
	started    bool
	stopped    bool
	dirty      map[string]bool
	unwatched  map[string]bool // dirs that cannot be watched: always dirty
	full       bool
	reason     string
	pending    bool   // a rebuild is asked for
	rebuilding bool   // a rebuild runs (or Start's first build)
	starting   bool   // Start's first build runs
	failed     bool   // the last rebuild could not watch everything
	rootID     fileID // identity of the root directory the build watched
	problem    string // why the last build could not watch everything ("" if it could)
	lastLog    string
	seq        uint64
	waiters    map[string]chan struct{} // Sync markers by file name
}

type item struct {
	gen uint64
	ev  event
}

// New returns a Watcher for the work tree at root. It watches nothing
// until Start.
func New(root string, opts Options) (*Watcher, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("watch: %s is not a directory", abs)
	}
	w := &Watcher{
		root:      abs,
		signed:    map[string]bool{},
		queueSize: opts.QueueSize,
		logf:      opts.Logf,
		ignored:   opts.Ignored,
		forget:    opts.Forget,
		cookieDir: opts.CookieDir,
		pause:     opts.StartPause,
		kick:      make(chan struct{}, 1),
		dirty:     map[string]bool{},
		unwatched: map[string]bool{},
		waiters:   map[string]chan struct{}{},
		full:      true,
		reason:    notTaken,

		newBackend: newFSNotify,
	}
	if w.queueSize <= 0 {
		w.queueSize = DefaultQueueSize
	}
	w.queue = make(chan item, w.queueSize)
	if w.logf == nil {
		w.logf = func(string, ...any) {}
	}
	if w.ignored == nil {
		w.ownIgnore = true
		if err := w.openIgnorer(); err != nil {
			return nil, err
		}
	}
	if w.forget == nil {
		w.forget = func(string) {}
	}
	return w, nil
}

// openIgnorer (re)opens the default Ignorer on the directory now at the
// root path: after the root was replaced, the old one would read the
// ignore files of a directory that is gone.
func (w *Watcher) openIgnorer() error {
	r, err := os.OpenRoot(w.root)
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	if w.osRoot != nil {
		w.osRoot.Close()
	}
	ig := walker.NewIgnorer(r)
	w.osRoot, w.ignored, w.forget, w.listed = r, ig.Ignored, ig.Forget, ig.Listed
	w.mu.Lock()
	w.stamps = ig.Stamps
	w.mu.Unlock()
	return nil
}

// rootReplaced reports whether the directory at the root path is not
// the one the watches were built on (removed, or another directory
// moved there): its watch reports nothing about the new one. Where the
// system gives no identity, only a missing root is seen.
func (w *Watcher) rootReplaced() bool {
	w.mu.Lock()
	running := w.started && !w.stopped && !w.starting
	w.mu.Unlock()
	if !running {
		// Every Take is Full anyway (and the first build takes the
		// root's identity itself).
		return false
	}
	fi, err := os.Stat(w.root)
	if err != nil || !fi.IsDir() {
		return true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return idOf(fi) != w.rootID
}

// Start watches every non-ignored directory of the work tree (each
// watch is added before its directory is listed) and then follows
// events until ctx is done or Close is called. It fails if the root
// cannot be watched; other directories that cannot be watched put the
// watcher in doubt instead.
func (w *Watcher) Start(ctx context.Context) error {
	w.mu.Lock()
	if w.started {
		w.mu.Unlock()
		return errors.New("watch: already started")
	}
	w.started = true
	// A Take during the first build is Full and leaves the watcher in
	// doubt, as during a rebuild: the changes of the next Take must
	// start once every directory is watched.
	w.starting, w.rebuilding = true, true
	w.mu.Unlock()
	if w.cookieDir == "" {
		d, err := os.MkdirTemp("", "turnback-watch-")
		if err != nil {
			return fmt.Errorf("watch: %w", err)
		}
		w.cookieDir, w.ownCookie = d, true
	}
	if d, err := filepath.Abs(w.cookieDir); err == nil {
		w.cookieDir = d
	}
	ctx, cancel := context.WithCancel(ctx)
	g, gctx := errgroup.WithContext(ctx)
	w.cancel, w.g = cancel, g
	w.inStart = true
	err := w.build(gctx)
	w.inStart = false
	if err != nil {
		w.Close()
		return err
	}
	w.afterBuild(nil)
	g.Go(func() error { return w.loop(gctx) })
	return nil
}

// Problem says why the last time the watches were built (at Start, or
// a rebuild after a doubt) not every directory could be watched, "" if
// they all were: the inotify watch limit, say. Until a build succeeds,
// every Take is Full.
func (w *Watcher) Problem() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.problem
}

// Take returns the changes accumulated since the previous Take and
// starts a new accumulation. The first Take after Start is Full (so is
// one made while Start still builds the watches, and the Take after
// it). Once a
// doubt is reported (Full), the watcher rebuilds its watches; Take keeps
// reporting Full until a rebuild has completed before the Take began,
// so a capture that follows a Take which is not Full can trust it. Call
// Sync first to include every change made before the call.
func (w *Watcher) Take() Changes {
	if w.rootReplaced() {
		w.doubt(w.curGen(), "the work tree root was removed or replaced", true)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	c := Changes{Dirs: w.dirty, Full: w.full, Reason: w.reason}
	w.dirty = map[string]bool{}
	for d := range w.unwatched {
		c.Dirs[d] = true
	}
	switch {
	case !w.started:
		c.Full, c.Reason = true, "watcher not started"
	case w.stopped:
		c.Full, c.Reason = true, "watcher stopped"
	case !w.full:
	case w.failed:
		// Try again; until then every Take is Full.
		w.failed, w.pending = false, true
		w.wake()
	case w.pending || w.rebuilding:
	default:
		w.full, w.reason = false, ""
	}
	return c
}

// Sync returns once every event caused by a change made before the call
// has been handled (or the watcher is in doubt, which the next Take
// reports), so that the next Take covers all those changes. It creates
// a marker file in the cookie directory and waits for its event: one
// inotify instance delivers events in the order they happened.
func (w *Watcher) Sync(ctx context.Context) error {
	w.mu.Lock()
	if !w.started || w.stopped {
		w.mu.Unlock()
		return errors.New("watch: watcher not running")
	}
	if w.full {
		w.mu.Unlock()
		return nil
	}
	w.seq++
	name := fmt.Sprintf("sync-%d", w.seq)
	done := make(chan struct{})
	w.waiters[name] = done
	w.mu.Unlock()
	drop := func() {
		w.mu.Lock()
		delete(w.waiters, name)
		w.mu.Unlock()
	}
	p := filepath.Join(w.cookieDir, name)
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		drop()
		if errors.Is(err, fs.ErrNotExist) && os.MkdirAll(w.cookieDir, 0o700) == nil {
			w.doubt(w.curGen(), "the sync directory "+w.cookieDir+" was removed", true)
			return nil
		}
		return fmt.Errorf("watch: sync: %w", err)
	}
	defer os.Remove(p)
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		drop()
		return ctx.Err()
	}
}

// Close stops the watcher and releases its watches. Take then reports
// Full. Close is safe to call more than once.
func (w *Watcher) Close() error {
	w.closeOnce.Do(func() {
		if w.cancel != nil {
			w.cancel()
			w.g.Wait()
		}
		if w.fsw != nil {
			w.fsw.Close()
		}
		if w.ownCookie {
			os.RemoveAll(w.cookieDir)
		}
		if w.osRoot != nil {
			w.osRoot.Close()
		}
		w.mu.Lock()
		w.stopped = true
		w.releaseLocked()
		w.mu.Unlock()
	})
	return nil
}

// IndexStamps returns the git index versions the watcher's default
// Ignorer judged which directories to watch by (nil with
// Options.Ignored): a base captured under other versions may hold
// tracked directories the watcher never watched.
func (w *Watcher) IndexStamps() []gitindex.Stamp {
	w.mu.Lock()
	f := w.stamps
	w.mu.Unlock()
	if f == nil {
		return nil
	}
	return f()
}

// Doubt puts the watcher in doubt for a reason it cannot see itself
// (git's index changed, so which directories are ignored may have): the
// next Take is Full, and the watches are rebuilt, with the ignore rules
// read afresh.
func (w *Watcher) Doubt(reason string) {
	w.doubt(w.curGen(), reason, true)
}

// doubt puts the watcher in doubt (the next Take is Full) if gen is the
// current generation; with rebuild the loop rebuilds its watches.
func (w *Watcher) doubt(gen uint64, reason string, rebuild bool) {
	w.mu.Lock()
	if gen != w.gen {
		w.mu.Unlock()
		return
	}
	if !w.full || w.reason == notTaken {
		w.full, w.reason = true, reason
	}
	if rebuild {
		w.pending = true
	}
	w.releaseLocked()
	logIt := reason != w.lastLog
	w.lastLog = reason
	w.mu.Unlock()
	if logIt {
		w.logf("watch: in doubt, next capture reads everything: %s", reason)
	}
	w.wake()
}

// releaseLocked wakes every Sync waiting (w.mu held).
func (w *Watcher) releaseLocked() {
	for name, ch := range w.waiters {
		close(ch)
		delete(w.waiters, name)
	}
}

func (w *Watcher) wake() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

func (w *Watcher) curGen() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.gen
}

func (w *Watcher) mark(rel string) {
	w.mu.Lock()
	w.markLocked(rel)
	w.mu.Unlock()
}

// maxDirty bounds Changes.Dirs: beyond it (changes nobody takes) the
// watcher stops counting and doubts instead.
const maxDirty = 1 << 17

func (w *Watcher) markLocked(rel string) {
	if len(w.dirty) >= maxDirty && !w.dirty[rel] {
		if !w.full || w.reason == notTaken {
			w.full, w.reason = true, fmt.Sprintf("more than %d directories changed", maxDirty)
		}
		return
	}
	w.dirty[rel] = true
}

// rel maps an event's path to the work tree ("" the root); ok is false
// for a path outside it.
func (w *Watcher) rel(name string) (string, bool) {
	if name == w.root {
		return "", true
	}
	prefix := w.root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	r, ok := strings.CutPrefix(name, prefix)
	if !ok || r == "" {
		return "", false
	}
	return filepath.ToSlash(r), true
}

func (w *Watcher) abs(rel string) string {
	if rel == "" {
		return w.root
	}
	return filepath.Join(w.root, filepath.FromSlash(rel))
}
