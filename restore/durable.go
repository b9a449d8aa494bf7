package restore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"syscall"

	"github.com/turnback/turnback/manifest"
	"golang.org/x/sync/errgroup"
)

const (
	// syncLimit bounds the fsyncs of one chunk running at once.
	// Concurrent fsyncs on one file system share its journal commits
	// (ext4, xfs), so a batch costs a few commits instead of one per file.
	syncLimit = 32
	// syncChunk is how many written files wait, open, for their fsync:
	// a restore of more starts syncing them chunk by chunk while it
	// writes the next ones.
	syncChunk = 128
	// syncChunks bounds the chunks (the directories count as one) being
	// synced at once; staging waits for one to finish beyond that, so at
	// most (syncChunks+1)*syncChunk staged files are open.
	syncChunks = 2
)

// batch makes the staged entries of one restore durable before its
// commit point, together. Staged files are handed over open once written
// (with owner and mode). Up to a chunk of them, nothing is synced while
// they are written, so a create never waits behind a journal commit the
// sync of the previous file started. A full chunk, or at start the rest,
// gets its writeback started on every file at once (startWriteback),
// then its files are fsynced and closed by a bounded group of goroutines
// in the background, while staging goes on with the next chunk; start
// also syncs every directory that holds a staging name. Apply calls
// start after staging, runs its pre-commit check while the syncs run,
// and writes the journal only once wait has returned nil.
type batch struct {
	ctx     context.Context
	g       errgroup.Group
	sync    func(*os.File) error
	pending []*os.File      // written, not yet being synced
	dirs    map[string]bool // directories (relative to the work tree) that got a staging name
	started bool
}

func newBatch(ctx context.Context, sync func(*os.File) error) *batch {
	if sync == nil {
		sync = (*os.File).Sync
	}
	b := &batch{ctx: ctx, sync: sync, dirs: map[string]bool{}}
	b.g.SetLimit(syncChunks)
	return b
}

// file takes over f, a staged file fully written, with its owner and
// mode, to fsync and close it.
func (b *batch) file(f *os.File) {
	b.pending = append(b.pending, f)
	if len(b.pending) >= syncChunk {
		b.flush()
	}
}

// dir notes that directory rel holds a new staging entry.
func (b *batch) dir(rel string) { b.dirs[rel] = true }

// flush starts the writeback of every pending file, then syncs and
// closes them as one chunk in the background. It blocks while syncChunks
// chunks are being synced.
func (b *batch) flush() {
	files := b.pending
	b.pending = nil
	if len(files) == 0 {
		return
	}
	for _, f := range files {
		startWriteback(f)
	}
	b.g.Go(func() error {
		return syncAll(files, func(f *os.File) error {
			err := b.sync(f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("restore: sync staged %s: %w", f.Name(), err)
			}
			return nil
		})
	})
}

// syncAll runs sync on every file, syncLimit at a time, and returns the
// first error once all have run.
func syncAll(files []*os.File, sync func(*os.File) error) error {
	var g errgroup.Group
	g.SetLimit(syncLimit)
	for _, f := range files {
		g.Go(func() error { return sync(f) })
	}
	return g.Wait()
}

// start syncs what is pending and every noted directory, in the
// background; wait waits for them. It returns an error only when a
// directory cannot be opened (what was started is still to be waited
// for).
func (b *batch) start(d *dirs) error {
	b.started = true
	names := make([]string, 0, len(b.dirs))
	for rel := range b.dirs {
		names = append(names, rel)
	}
	sort.Strings(names)
	// Handles are opened here, in this goroutine: d is not safe for use
	// by several, and its cache closes what it evicts.
	var open []*os.File
	var err error
	for _, rel := range names {
		var f *os.File
		r, gerr := d.get(rel)
		if gerr == nil {
			f, gerr = r.Open(".")
		}
		if gerr != nil {
			if dirSyncStrict && !dirSyncUnsupported(gerr) {
				err = fmt.Errorf("restore: sync directory %q: %w", rel, gerr)
				break
			}
			continue
		}
		open = append(open, f)
	}
	b.flush()
	b.g.Go(func() error {
		return syncAll(open, func(f *os.File) error {
			serr := b.sync(f)
			f.Close()
			if serr != nil && dirSyncStrict && !dirSyncUnsupported(serr) {
				return fmt.Errorf("restore: sync directory %s: %w", f.Name(), serr)
			}
			return nil
		})
	})
	return err
}

// wait waits for every sync started (starting them first if start was
// not called) and returns the first error. Every file handed over is
// closed when it returns, whatever happened.
func (b *batch) wait(d *dirs) error {
	var err error
	if !b.started {
		err = b.start(d)
	}
	if werr := b.g.Wait(); err == nil {
		err = werr
	}
	if err == nil {
		err = b.ctx.Err()
	}
	return err
}

// abort closes the files not yet being synced, waits for the others (so
// all are closed, and can be removed, also where an open file cannot
// be), and drops any error: the restore is being abandoned before its
// commit point.
func (b *batch) abort() {
	for _, f := range b.pending {
		f.Close()
	}
	b.pending = nil
	_ = b.g.Wait()
}

// changedDirs lists the directories whose entries a journal's actions
// (but those in skip) changed: the parent of every path removed, placed
// or replaced, sorted.
func changedDirs(j *journal, skip map[int]string) []string {
	set := map[string]bool{}
	for i, a := range j.Actions {
		if skip[i] != "" {
			continue
		}
		dir, _ := manifest.SplitPath(a.Path)
		set[dir] = true
	}
	out := make([]string, 0, len(set))
	for dir := range set {
		out = append(out, dir)
	}
	sort.Strings(out)
	return out
}

// syncDirs fsyncs the work tree's directories rels, syncLimit at a time,
// after the renames and removals of a committed restore and before its
// journal goes: on file systems that do not order directory updates
// across directories (btrfs, ext4 with fast_commit), a power loss could
// otherwise keep the journal's removal and lose a rename, so the store
// would say done where the old entry is back. A directory that no longer
// exists or is no longer a directory (removed or replaced by the same
// restore, which its parent records) is passed over; errors are as for the syncs before the commit point (best
// effort where dirSyncStrict is false). sync nil is (*os.File).Sync.
func syncDirs(ctx context.Context, d *dirs, rels []string, sync func(*os.File) error) error {
	if sync == nil {
		sync = (*os.File).Sync
	}
	var open []*os.File
	for _, rel := range rels {
		if err := ctx.Err(); err != nil {
			closeAll(open)
			return err
		}
		r, err := d.get(rel)
		var f *os.File
		if err == nil {
			f, err = r.Open(".")
		}
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrEscape) {
			continue // gone, or no longer a directory: its parent records that
		}
		if err != nil {
			if dirSyncStrict && !dirSyncUnsupported(err) {
				closeAll(open)
				return fmt.Errorf("restore: sync directory %q: %w", rel, err)
			}
			continue
		}
		open = append(open, f)
	}
	return syncAll(open, func(f *os.File) error {
		serr := sync(f)
		f.Close()
		if serr != nil && dirSyncStrict && !dirSyncUnsupported(serr) {
			return fmt.Errorf("restore: sync directory %s: %w", f.Name(), serr)
		}
		return nil
	})
}

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// dirSyncUnsupported reports an error that says the file system cannot
// open or fsync a directory at all (some network and FUSE file systems;
// a directory we may write but not read): there is nothing more durable
// to be had, as syncDir does for the journal directory. Where
// dirSyncStrict is false (not Linux: Windows cannot fsync a directory,
// macOS's F_FULLFSYNC on one is not ours to test) every directory sync
// is best effort.
func dirSyncUnsupported(err error) bool {
	return errors.Is(err, errors.ErrUnsupported) || errors.Is(err, syscall.EINVAL) ||
		errors.Is(err, syscall.ENOTSUP) || errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EISDIR)
}
