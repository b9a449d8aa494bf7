package restore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"syscall"

	"golang.org/x/sync/errgroup"
)

// syncLimit bounds the staged files (and directories) being fsynced at
// once. Concurrent fsyncs on one file system share its journal commits
// (ext4, xfs), so a batch costs a few commits instead of one per file.
const syncLimit = 16

// batch makes the staged entries of one restore durable before its
// commit point, all together: each staged file is handed over open once
// written and fsynced (then closed) by a bounded group of goroutines while
// the next ones are written and while the pre-commit check reads the
// tree; wait then waits for them and fsyncs, once each, the directories
// that hold staging names (their new entries, links and fifos included).
// Only when wait returns nil is every staged entry durable, and only then
// is the journal written (see Apply).
type batch struct {
	ctx  context.Context
	g    errgroup.Group
	sync func(*os.File) error
	dirs map[string]bool // directories (relative to the work tree) that got a staging name
}

func newBatch(ctx context.Context, sync func(*os.File) error) *batch {
	if sync == nil {
		sync = (*os.File).Sync
	}
	b := &batch{ctx: ctx, sync: sync, dirs: map[string]bool{}}
	b.g.SetLimit(syncLimit)
	return b
}

// file takes over f, a staged file fully written, with its owner and
// mode: it is fsynced and closed in the background. Go blocks while
// syncLimit syncs are running, so at most that many files stay open.
func (b *batch) file(f *os.File) {
	b.g.Go(func() error {
		err := b.sync(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("restore: sync staged %s: %w", f.Name(), err)
		}
		return nil
	})
}

// dir notes that directory rel holds a new staging entry.
func (b *batch) dir(rel string) { b.dirs[rel] = true }

// wait waits for every file handed over, then fsyncs each noted
// directory once (in parallel, bounded). It returns the first error; all
// files are closed when it returns, whatever happened.
func (b *batch) wait(d *dirs) error {
	if err := b.g.Wait(); err != nil {
		return err
	}
	if err := b.ctx.Err(); err != nil {
		return err
	}
	names := make([]string, 0, len(b.dirs))
	for rel := range b.dirs {
		names = append(names, rel)
	}
	sort.Strings(names)
	for _, rel := range names {
		// Handles are opened here, in order: d is not safe for use by
		// several goroutines, and its cache may close what it evicts.
		r, err := d.get(rel)
		if err == nil {
			var f *os.File
			if f, err = r.Open("."); err == nil {
				b.g.Go(func() error {
					err := b.sync(f)
					f.Close()
					if err != nil && !dirSyncUnsupported(err) {
						return fmt.Errorf("restore: sync directory %q: %w", rel, err)
					}
					return nil
				})
				continue
			}
		}
		if !dirSyncUnsupported(err) {
			_ = b.g.Wait()
			return fmt.Errorf("restore: sync directory %q: %w", rel, err)
		}
	}
	return b.g.Wait()
}

// abort waits for the files handed over (so all are closed, and can be
// removed, also where an open file cannot be) and drops any error: the
// restore is being abandoned before its commit point.
func (b *batch) abort() { _ = b.g.Wait() }

// dirSyncUnsupported reports an error that says the platform or file
// system cannot open or fsync a directory at all (Windows; some network
// and FUSE file systems): there is nothing more durable to be had, as
// syncDir does for the journal directory.
func dirSyncUnsupported(err error) bool {
	return errors.Is(err, errors.ErrUnsupported) || errors.Is(err, syscall.EINVAL) ||
		errors.Is(err, syscall.ENOTSUP) || errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EISDIR)
}
