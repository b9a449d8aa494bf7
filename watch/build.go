package watch

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sort"
	"sync"

	"github.com/turnback/turnback/manifest"
)

// buildWorkers bounds the goroutines of a build (buildTree): listing
// directories is most of a build's time and runs in parallel; adding
// the watches does not (see buildTree). More than the CPUs, so that a
// directory whose inodes are not cached does not leave a CPU idle.
func buildWorkers() int { return min(2*runtime.GOMAXPROCS(0), 8) }

// addTree watches directory rel and every non-ignored directory below
// it, adding each watch before listing the directory (so nothing created
// in between is missed), and marks every directory it finds dirty. It
// returns an error only when rel is the root and cannot be watched;
// other failures put the watcher in doubt or mark a directory
// unwatchable.
func (w *Watcher) addTree(ctx context.Context, rel string) error {
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
		subs, err := w.listDir(d, true)
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

// buildTree is addTree("") for a build (Start's, or a rebuild after a
// doubt): the whole tree, by buildWorkers goroutines. Each directory's
// watch is still added before it is listed, and its subdirectories are
// handled only after that listing. What the build owns (the tree of
// watches, the identities, the backend's Add and Remove: watchDir and
// the failures) is done under one mutex, one directory at a time, so
// that the identity rules of watchDir hold as in a sequential build;
// the listings and the ignore rules (the Ignorer is safe for concurrent
// use) run in parallel. StartPause is called under that mutex: while it
// waits, the whole build does.
//
// It marks nothing dirty: the Take after a build is always Full (Start:
// the first Take; a rebuild: the watcher was in doubt), which makes
// marks made during the build useless, and on a large tree they cost a
// set of every directory. A watcher given its own Options.Ignored
// (whose concurrency is unknown) builds sequentially.
func (w *Watcher) buildTree(ctx context.Context) error {
	n := buildWorkers()
	if !w.ownIgnore || n < 2 {
		return w.addTree(ctx, "")
	}
	var (
		mu    sync.Mutex
		cond  = sync.NewCond(&mu)
		stack = []string{""}
		busy  int // directories being listed
		stop  bool
		err   error // the root's, the only one a build returns
	)
	worker := func() {
		mu.Lock()
		defer mu.Unlock()
		defer cond.Broadcast()
		for {
			for len(stack) == 0 && busy > 0 && !stop {
				cond.Wait()
			}
			if stop || len(stack) == 0 {
				stop = true
				return
			}
			if w.inStart && w.pause != nil {
				w.pause(ctx)
			}
			if ctx.Err() != nil {
				stop = true
				return
			}
			d := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			ok, werr := w.watchDir(d, w.abs(d))
			if werr != nil {
				err, stop = werr, true
				return
			}
			if !ok {
				continue
			}
			busy++
			mu.Unlock()
			subs, lerr := w.listDir(d, false)
			mu.Lock()
			busy--
			if lerr != nil {
				if lerr = w.listFailed(d, lerr); lerr != nil {
					err, stop = lerr, true
					return
				}
			}
			stack = append(stack, subs...)
			cond.Broadcast()
		}
	}
	var wg sync.WaitGroup
	for range n {
		wg.Go(worker)
	}
	wg.Wait()
	return err
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
	ents, err := os.ReadDir(w.abs(d))
	if err != nil {
		return nil, err
	}
	if w.listed != nil {
		w.listed(d, func(name string) bool {
			i := sort.Search(len(ents), func(i int) bool { return ents[i].Name() >= name })
			return i < len(ents) && ents[i].Name() == name && ents[i].Type().IsRegular()
		})
	}
	var subs []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		c := manifest.JoinPath(d, e.Name())
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
