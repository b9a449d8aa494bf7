package watch

import (
	"context"
	"fmt"

	"github.com/turnback/turnback/manifest"
)

// addTree watches directory rel and every non-ignored directory below
// it, adding each watch before listing the directory (so nothing created
// in between is missed), and with mark marks every directory it finds
// dirty. It returns an error only when rel is the root and cannot be
// watched; other failures put the watcher in doubt or mark a directory
// unwatchable.
//
// A build (Start's, or a rebuild after a doubt) marks nothing: the Take
// after a build is always Full (Start: the first Take; a rebuild: the
// watcher was in doubt), which makes its marks useless, and on a large
// tree they cost a set of every directory.
func (w *Watcher) addTree(ctx context.Context, rel string, mark bool) error {
	stack := []string{rel}
	for len(stack) > 0 {
		if w.inStart && w.pause != nil {
			w.pause(ctx)
		}
		if ctx.Err() != nil {
			return nil
		}
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if ok, err := w.watchDir(d, w.abs(d)); err != nil {
			return err
		} else if !ok {
			continue
		}
		subs, err := w.listDir(d, mark)
		if err != nil {
			if err = w.listFailed(d, err); err != nil {
				return err
			}
			continue
		}
		stack = append(stack, subs...)
	}
	return nil
}

// listDir lists watched directory d and returns its non-ignored
// subdirectories, having told the Ignorer which regular files d holds
// (an ignore file created after the listing is a doubt). With mark, d is
// marked dirty. An error is the listing's, for listFailed.
func (w *Watcher) listDir(d string, mark bool) ([]string, error) {
	w.mu.Lock()
	if mark {
		w.markLocked(d)
	}
	delete(w.unwatched, d)
	w.mu.Unlock()
	names, regular, err := readDir(w.abs(d))
	if err != nil {
		return nil, err
	}
	if w.listed != nil {
		w.listed(d, regular)
	}
	var subs []string
	for _, name := range names {
		c := manifest.JoinPath(d, name)
		if !w.ignored(c, true) {
			subs = append(subs, c)
		}
	}
	return subs, nil
}

// listFailed handles a watched directory d that could not be listed:
// an error for the root; otherwise d is unwatchable, unless it is gone
// (its parent reports that).
func (w *Watcher) listFailed(d string, err error) error {
	if d == "" {
		return fmt.Errorf("watch: cannot list the work tree root: %w", err)
	}
	if !gone(err) {
		w.unwatchable(d, err)
	}
	return nil
}

// CountFromStart is for a caller whose base was captured while Start
// built the watches, each directory listed after its watch was added (a
// command's capture that a daemon takes over; which directories it
// listed too early is the caller's to know and to read again). If the
// next Take would be the first, it then reports every change since
// each directory's watch was added instead of Full: events that came
// during the build were queued and are counted once it is done. It
// returns false, and the next Take is Full as usual, when the watcher
// doubted since (a queue overflow, a directory it could not watch...),
// is not started, still builds, is stopped, or was taken already. Call
// Sync after it, then Take.
func (w *Watcher) CountFromStart() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.started || w.stopped || !w.full || w.reason != notTaken || w.failed || w.pending || w.rebuilding {
		return false
	}
	w.full, w.reason = false, ""
	return true
}
