package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/walker/ignore"
)

// loop handles the queued events and rebuilds the watches when in
// doubt, until ctx is done.
func (w *Watcher) loop(ctx context.Context) error {
	defer func() {
		w.mu.Lock()
		w.stopped = true
		w.releaseLocked()
		w.mu.Unlock()
	}()
	for {
		if w.takeRebuild() {
			w.rebuild(ctx)
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-w.kick:
		case it := <-w.queue:
			if w.hook != nil {
				w.hook()
			}
			if it.gen == w.curGen() && w.fsw != nil {
				w.handle(ctx, it.ev)
			}
		}
	}
}

func (w *Watcher) takeRebuild() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.pending {
		return false
	}
	w.pending, w.rebuilding = false, true
	return true
}

func (w *Watcher) rebuild(ctx context.Context) {
	w.logf("watch: rebuilding the watches of %s", w.root)
	err := w.build(ctx)
	if err != nil {
		w.logf("watch: rebuild: %v", err)
		w.doubt(w.curGen(), err.Error(), false)
	}
	w.afterBuild(err)
}

// afterBuild records how a build went.
func (w *Watcher) afterBuild(err error) {
	w.mu.Lock()
	w.rebuilding, w.starting = false, false
	failed := err != nil || w.badBuild
	w.problem = ""
	if failed {
		w.failed = true
		w.problem = w.badReason
		if err != nil {
			w.problem = err.Error()
		}
	}
	w.mu.Unlock()
	if failed && w.fsw != nil {
		// Every Take is Full until a rebuild succeeds (one is tried per
		// Take): free the watches meanwhile.
		w.fsw.Close()
		w.fsw = nil
	}
}

// build starts a new generation: a fresh fsnotify watcher (so no stale
// watch survives), its pump, and watches on the cookie directory and the
// whole work tree. It fails if the root cannot be watched; other
// directories that cannot be watched set w.badBuild.
func (w *Watcher) build(ctx context.Context) error {
	if w.fsw != nil {
		w.fsw.Close()
		w.fsw = nil
	}
	w.mu.Lock()
	w.gen++
	gen := w.gen
	w.releaseLocked()
	clear(w.unwatched)
	w.mu.Unlock()
	// What is queued belongs to older generations.
	for drained := false; !drained; {
		select {
		case <-w.queue:
		default:
			drained = true
		}
	}
	fsw, err := w.newBackend()
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	w.fsw = fsw
	w.g.Go(func() error {
		w.pump(ctx, fsw, gen)
		return nil
	})
	w.forget("")
	w.tree = &node{}
	w.ids = map[fileID]*node{}
	w.building, w.badBuild = true, false
	defer func() { w.building = false }()
	// The root's identity is taken before its watch is added: a root
	// replaced in between is then seen by the next Take.
	fi, err := os.Stat(w.root)
	if err != nil {
		return fmt.Errorf("watch: work tree root: %w", err)
	}
	w.mu.Lock()
	w.rootID = idOf(fi)
	w.mu.Unlock()
	if w.ownIgnore {
		if err := w.openIgnorer(); err != nil {
			return err
		}
	}
	if err := fsw.Add(w.cookieDir); err != nil {
		return fmt.Errorf("watch: sync directory: %w", err)
	}
	if err := w.addTree(ctx, "", false); err != nil {
		return err
	}
	if w.ownIgnore {
		// What the build kept of every directory's ignore files (on a
		// large tree, more memory than the watches) is read again as
		// events need it: the daemon's first capture, right after,
		// allocates a lot, and every garbage collection would scan it.
		w.forget("")
	}
	return nil
}

// pump moves the events of one backend to the queue, without ever
// blocking: a full queue means lost events, hence doubt.
func (w *Watcher) pump(ctx context.Context, fsw backend, gen uint64) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-fsw.Events():
			if !ok {
				return
			}
			select {
			case w.queue <- item{gen: gen, ev: ev}:
			default:
				w.doubt(gen, fmt.Sprintf("event queue full (%d events): events were dropped", w.queueSize), true)
			}
		case err, ok := <-fsw.Errors():
			if !ok {
				return
			}
			reason := "watcher error: " + err.Error()
			if errors.Is(err, errOverflow) {
				reason = err.Error()
			}
			w.doubt(gen, reason, true)
		}
	}
}

// handle applies one event: see "Rules" in the package doc.
func (w *Watcher) handle(ctx context.Context, ev event) {
	if c, ok := strings.CutPrefix(ev.Name, w.cookieDir+string(filepath.Separator)); ok {
		if ev.Has(opCreate) {
			w.mu.Lock()
			if ch := w.waiters[c]; ch != nil {
				close(ch)
				delete(w.waiters, c)
			}
			w.mu.Unlock()
		}
		return
	}
	rel, ok := w.rel(ev.Name)
	if !ok {
		return
	}
	if rel == "" {
		if ev.Has(opRescan) {
			w.doubt(w.curGen(), "the watch backend asked for a rescan of the whole tree", true)
			return
		}
		if ev.Has(opRemove) || ev.Has(opRename) {
			w.doubt(w.curGen(), "the work tree root was removed or moved", true)
			return
		}
		w.mark("")
		return
	}
	parent := manifest.ParentPath(rel)
	if ev.Has(opRescan) {
		w.rescan(ctx, rel, parent)
		return
	}
	if slices.Contains(ignore.FileNames, path.Base(rel)) {
		// The rules changed: which paths exist for the walker may have
		// changed anywhere below parent.
		w.forget(parent)
		w.mark(parent)
		w.doubt(w.curGen(), "ignore file "+rel+" changed", true)
		return
	}
	if name := path.Base(rel); parent != "" && (name == ".git" || ignore.IsMarker(name) &&
		slices.Contains(ignore.MarkerNames(path.Base(parent), ignore.ProbeName), name)) &&
		(ev.Has(opCreate) || ev.Has(opRemove) || ev.Has(opRename) || ev.Has(opWrite) && ignore.ContentDecides(name)) {
		// A marker of a generated directory, or a repository, came or
		// went: whether parent is skipped, or which paths below it git
		// tracks, may have changed, and with it which directories
		// below it need watches. It is watched and listed again. A
		// write counts only for a marker whose content decides, and
		// only when its verdict flipped (signed.go).
		rescan := true
		if ignore.ContentDecides(name) {
			flipped := w.signFlipped(rel, name)
			rescan = flipped || !ev.Has(opWrite)
		}
		if rescan {
			w.rescan(ctx, parent, manifest.ParentPath(parent))
		}
	}
	if ev.Has(opRemove) || ev.Has(opRename) {
		known := w.tree.find(rel) != nil
		if known {
			w.drop(rel)
			w.forget(rel)
		}
		if known || !w.ignored(rel, false) || !w.ignored(rel, true) {
			w.mark(parent)
		}
		if known {
			// The event may be older than what the loop knows of rel:
			// another directory may have taken its place and been
			// watched already (listed with an ancestor), and the drop
			// has just removed that watch. Whatever is at rel now is
			// watched again.
			if fi, err := os.Lstat(w.abs(rel)); err == nil && fi.IsDir() && !w.ignored(rel, true) {
				w.mark(rel)
				if err := w.addTree(ctx, rel, true); err != nil {
					w.doubt(w.curGen(), err.Error(), true)
				}
			}
		}
	}
	switch {
	case ev.Has(opCreate) || ev.Has(opChmod):
		fi, err := os.Lstat(w.abs(rel))
		if err != nil {
			// Gone already; its removal has its own event.
			if !w.ignored(rel, false) || !w.ignored(rel, true) {
				w.mark(parent)
			}
			return
		}
		if !fi.IsDir() {
			if !w.ignored(rel, false) {
				w.mark(parent)
			}
			return
		}
		if w.ignored(rel, true) {
			return
		}
		w.mark(parent)
		w.mark(rel)
		if n := w.tree.find(rel); ev.Has(opCreate) || n == nil || !n.watched {
			w.forget(rel)
			if err := w.addTree(ctx, rel, true); err != nil {
				w.doubt(w.curGen(), err.Error(), true)
			}
		}
	case ev.Has(opWrite):
		if !w.ignored(rel, false) {
			w.mark(parent)
		}
	}
}

// rescan handles opRescan on rel (not the root): what happened below rel
// is unknown, ignore files included. Its watches are dropped, its ignore
// rules forgotten, and whatever is at rel now is watched and listed
// again as if created, which marks every directory below it dirty.
func (w *Watcher) rescan(ctx context.Context, rel, parent string) {
	if w.tree.find(rel) != nil {
		w.drop(rel)
	}
	w.forget(rel)
	if !w.ignored(rel, false) || !w.ignored(rel, true) {
		w.mark(parent)
	}
	fi, err := os.Lstat(w.abs(rel))
	if err != nil || !fi.IsDir() || w.ignored(rel, true) {
		return
	}
	w.mark(rel)
	if err := w.addTree(ctx, rel, true); err != nil {
		w.doubt(w.curGen(), err.Error(), true)
	}
}

// watchDir adds the watch of directory d (abs its path) and records it
// in the tree; false if d is not watched (gone, not a directory, or a
// failure handled as addFailed says). The error is only for the root.
//
// inotify answers an Add of a directory it already watches with that
// same watch, and fsnotify then keeps it under the path it was added
// with. A directory found here may still be watched under a path it
// has left (a rename the loop has not handled yet, of it or of an
// ancestor): its watch would go with that path when the rename is
// handled, leaving d unwatched, and its events would be reported under
// the old path meanwhile. So the watch of a directory with the same
// identity (device and inode) under another path is removed, and the
// directory is watched afresh. The watch this path had (whichever
// directory it was on) is removed before the Add: fsnotify v1.10, asked
// to add a path it has (for one directory) that now holds a directory
// it watches under another path, keeps a path entry without its watch,
// and a later Remove of that path panics.
func (w *Watcher) watchDir(d, abs string) (bool, error) {
	if n := w.tree.find(d); n != nil && n.watched {
		w.unwatch(d, n)
	}
	for try := 0; ; try++ {
		if err := w.add(d, abs); err != nil {
			if d == "" {
				return false, fmt.Errorf("watch: cannot watch the work tree root: %w", err)
			}
			w.addFailed(d, err)
			return false, nil
		}
		// A symlink put in place of the directory would have been
		// followed by Add: never watch or list through one.
		fi, err := os.Lstat(abs)
		if err != nil || !fi.IsDir() {
			w.fsw.Remove(abs)
			if d == "" {
				return false, fmt.Errorf("watch: the work tree root %s is not a directory any more", w.root)
			}
			return false, nil // its parent reports the change
		}
		id := idOf(fi)
		on := w.ids[id]
		if id == (fileID{}) || on == nil {
			n := w.tree.insert(d)
			n.watched, n.id = true, id
			if id != (fileID{}) {
				w.ids[id] = n
			}
			return true, nil
		}
		// The Add joined the watch kept under old: drop both and add
		// again (a fresh watch, under d).
		w.fsw.Remove(abs)
		old := on.path()
		if on == w.tree || try == 2 {
			// The root under another path (a bind mount), or d keeps
			// being replaced by directories watched elsewhere.
			w.failBuild(fmt.Sprintf("%s is also watched as %q", d, old))
			return false, nil
		}
		w.unwatch(old, on)
		w.forget(old)
		w.mark(manifest.ParentPath(old))
	}
}

// unwatch removes the watch of directory rel (node n), not those below
// it.
func (w *Watcher) unwatch(rel string, n *node) {
	if n == nil || !n.watched {
		return
	}
	w.fsw.Remove(w.abs(rel))
	n.watched = false
	if w.ids[n.id] == n {
		delete(w.ids, n.id)
	}
}

func (w *Watcher) add(rel, abs string) error {
	if w.addHook != nil {
		if err := w.addHook(rel); err != nil {
			return err
		}
	}
	return w.fsw.Add(abs)
}

// addFailed handles a failed Add of directory d (not the root).
func (w *Watcher) addFailed(d string, err error) {
	switch {
	case gone(err):
		// Removed or replaced since it was listed: its parent's watch
		// reports that.
	case errors.Is(err, fs.ErrPermission):
		w.unwatchable(d, err)
	case errors.Is(err, syscall.ENOSPC):
		w.failBuild(fmt.Sprintf("inotify watch limit reached (raise fs.inotify.max_user_watches): %s: %v", d, err))
	default:
		w.failBuild(fmt.Sprintf("cannot watch %s: %v", d, err))
	}
}

// failBuild records that a directory could not be watched: a build in
// progress fails; otherwise the watches are rebuilt.
func (w *Watcher) failBuild(reason string) {
	if w.building {
		if !w.badBuild {
			w.badReason = reason
		}
		w.badBuild = true
		w.doubt(w.curGen(), reason, false)
		return
	}
	w.doubt(w.curGen(), reason, true)
}

// unwatchable records a directory the watcher cannot watch or list (as
// the walker cannot read it either): it is reported dirty by every Take
// until it is watched or removed.
func (w *Watcher) unwatchable(d string, err error) {
	w.logf("watch: %s cannot be watched, read by every capture: %v", d, err)
	w.unwatch(d, w.tree.insert(d))
	w.mu.Lock()
	w.unwatched[d] = true
	w.markLocked(d)
	w.mu.Unlock()
}

func gone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// drop removes the watches of directory rel and of everything below it
// (after it was removed or renamed; the kernel keeps the watches of a
// renamed tree, under paths that are now wrong).
func (w *Watcher) drop(rel string) {
	n := w.tree.detach(rel)
	if n == nil {
		return
	}
	n.each(rel, w.unwatch)
	w.mu.Lock()
	for d := range w.unwatched {
		if d == rel || strings.HasPrefix(d, rel+"/") {
			delete(w.unwatched, d)
		}
	}
	w.mu.Unlock()
}
