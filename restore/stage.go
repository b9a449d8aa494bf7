package restore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
)

// stager writes the staged entries of one restore. It remembers, per
// hard-link group, the first member it staged, so that later members
// become links to it (see "Metadata" in the package doc).
type stager struct {
	groups map[string]stagedFile // LinkTo -> first staged member
	buf    []byte                // copySparse's buffer, reused file after file
}

type stagedFile struct {
	stage string
	e     *manifest.Entry
}

func newStager() *stager {
	return &stager{groups: map[string]stagedFile{}, buf: make([]byte, copyBufSize)}
}

// stage writes entry e, the new content of path, at the staging name
// stage: a file (written sparse, or linked to an earlier member of its
// hard-link group) or a fifo; owner and mode as in applyOwner.
//
// What it writes is made durable by b (see batch): a file is handed over
// to be fsynced, and the staging name's directory noted, also for a link
// or a fifo.
func (s *stager) stage(ctx context.Context, d *dirs, b *batch, stage, path string, e *manifest.Entry, src Source) error {
	err := s.stageEntry(ctx, d, b, stage, path, e, src)
	if err == nil {
		dir, _ := manifest.SplitPath(stage)
		b.dir(dir)
	}
	return err
}

func (s *stager) stageEntry(ctx context.Context, d *dirs, b *batch, stage, path string, e *manifest.Entry, src Source) error {
	if e.Kind == manifest.KindFIFO {
		return stageFIFO(d, stage, path, e)
	}
	if e.LinkTo != "" {
		if first, ok := s.groups[e.LinkTo]; ok && sameInode(first.e, e) {
			err := linkStaged(d, first.stage, stage)
			if err == nil {
				return nil
			}
			if errors.Is(err, fs.ErrPermission) {
				return err // the caller retries one directory up
			}
			// Another file system, too many links, no link support: the
			// member is written as a file of its own.
		}
	}
	if err := stageFile(ctx, d, b, stage, path, e, src, s.buf); err != nil {
		return err
	}
	if e.LinkTo != "" {
		if _, ok := s.groups[e.LinkTo]; !ok {
			s.groups[e.LinkTo] = stagedFile{stage: stage, e: e}
		}
	}
	return nil
}

// sameInode reports whether a and b can share one inode: same content,
// mode and owner.
func sameInode(a, b *manifest.Entry) bool {
	return a.Hash == b.Hash && a.Size == b.Size && a.Mode == b.Mode && a.Owned == b.Owned && a.UID == b.UID && a.GID == b.GID && !a.Uncaptured && !b.Uncaptured
}

// stageFile writes the file; once it is complete, with its owner and
// mode, b takes it over to fsync and close it.
func stageFile(ctx context.Context, d *dirs, b *batch, stage, path string, e *manifest.Entry, src Source, buf []byte) error {
	r, name, err := d.leaf(stage)
	if err != nil {
		return err
	}
	in, err := src.Open(ctx, e.Hash)
	if err != nil {
		return err
	}
	if c, ok := in.(io.Closer); ok {
		// A reference's reader holds a file open until read to its
		// end or closed: closed too when staging fails part way.
		defer c.Close()
	}
	f, err := r.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	n, err := copySparse(f, in, buf)
	if err == nil && n != e.Size {
		err = fmt.Errorf("%w: content %s has %d bytes, the tree says %d", cas.ErrCorrupt, e.Hash.Short(), n, e.Size)
	}
	if err == nil {
		err = applyOwner(fileHandle{f}, d, path, e)
	}
	if err != nil {
		f.Close()
		return err
	}
	b.file(f)
	return nil
}

// fileHandle changes an open file (fchown, fchmod).
type fileHandle struct{ f *os.File }

func (h fileHandle) chown(uid, gid int) error   { return h.f.Chown(uid, gid) }
func (h fileHandle) chmod(m fs.FileMode) error  { return h.f.Chmod(m) }
func (h fileHandle) stat() (fs.FileInfo, error) { return h.f.Stat() }

// nameHandle changes an entry by name in its directory, never following
// a symlink for the owner (lchown).
type nameHandle struct {
	r    *os.Root
	name string
}

func (h nameHandle) chown(uid, gid int) error   { return h.r.Lchown(h.name, uid, gid) }
func (h nameHandle) chmod(m fs.FileMode) error  { return h.r.Chmod(h.name, m) }
func (h nameHandle) stat() (fs.FileInfo, error) { return h.r.Lstat(h.name) }
