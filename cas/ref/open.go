package ref

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ErrStale: the place a reference names no longer holds the content
// (missing, another size, or not a blob).
var ErrStale = errors.New("ref: reference is stale")

// Check reports, without reading content, whether r still looks like it
// holds the content rec describes (key is the content's BLAKE3 in hex,
// naming clones): the object exists with the right size. nil means
// usable; the content is verified when it is read.
func (f *Finder) Check(r Ref, rec *Record, key string) error {
	if r.Kind != Clone && f.excluded(r.Dir) {
		return fmt.Errorf("%w: %s is inside the work tree, which a restore may change", ErrStale, r.Dir)
	}
	switch r.Kind {
	case LFS:
		p := LFSPath(r.Dir, rec.SHA256)
		if f.excluded(p) { // a symlink to a file of the work tree
			return fmt.Errorf("%w: %s leads into the work tree, which a restore may change", ErrStale, p)
		}
		if err := checkFile(p, rec.Size); err != nil {
			return err
		}
		// A hard link shares the bytes with another name, maybe a file of
		// the work tree edited in place: no reference (git-lfs itself
		// copies or reflinks, never links).
		if fi, err := os.Stat(p); err == nil && linkCount(fi) > 1 {
			return fmt.Errorf("%w: %s has %d hard links; another name may change it", ErrStale, p, linkCount(fi))
		}
		return nil
	case Clone:
		return checkFile(ClonePath(r.Dir, key), rec.Size)
	case Git:
		var o *ODB
		if f != nil {
			o = f.ODB(r.Dir)
		} else {
			o = OpenODB(r.Dir)
		}
		ok, err := o.Has(rec.GitOID)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: git blob %x not in %s", ErrStale, rec.GitOID, r.Dir)
		}
		return nil
	}
	return fmt.Errorf("%w: unknown reference %s", ErrStale, r.Kind)
}

func checkFile(name string, size int64) error {
	fi, err := os.Stat(name)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrStale, err)
	}
	if !fi.Mode().IsRegular() || fi.Size() != size {
		return fmt.Errorf("%w: %s has %d bytes, not %d", ErrStale, name, fi.Size(), size)
	}
	return nil
}

// Open returns the content r holds for rec (key: the content's BLAKE3 in
// hex). The caller must verify what it reads: a reference names a place,
// and the place may have changed since (Check and the record's digests
// do not prove the bytes).
func Open(r Ref, rec *Record, key string) (io.ReadCloser, error) {
	switch r.Kind {
	case LFS:
		return openFile(LFSPath(r.Dir, rec.SHA256), rec.Size)
	case Clone:
		return openFile(ClonePath(r.Dir, key), rec.Size)
	case Git:
		rc, size, err := OpenODB(r.Dir).Open(rec.GitOID)
		if err != nil {
			return nil, err
		}
		if size != rec.Size {
			rc.Close()
			return nil, fmt.Errorf("%w: git blob %x has %d bytes, not %d", ErrStale, rec.GitOID, size, rec.Size)
		}
		return rc, nil
	}
	return nil, fmt.Errorf("%w: unknown reference %s", ErrStale, r.Kind)
}

func openFile(name string, size int64) (io.ReadCloser, error) {
	f, err := openRegular(name)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStale, err)
	}
	fi, err := f.Stat()
	if err == nil && (!fi.Mode().IsRegular() || fi.Size() != size) {
		err = fmt.Errorf("%w: %s has %d bytes, not %d", ErrStale, name, fi.Size(), size)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Describe names the place r points at, for messages.
func Describe(r Ref, rec *Record, key string) string {
	switch r.Kind {
	case LFS:
		return "Git LFS object " + LFSPath(r.Dir, rec.SHA256)
	case Git:
		return fmt.Sprintf("git blob %x in %s", rec.GitOID, filepath.Dir(r.Dir))
	case Clone:
		return "clone " + ClonePath(r.Dir, key)
	}
	return r.Kind.String()
}
