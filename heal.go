package turnback

// Healing from the folder: content a store holds damaged (or lost) is
// stored again by verify --repair when a file in the folder still holds
// exactly that content. The file is read and hashed; only content that
// hashes to the address the snapshots name is stored, so what the
// folder holds now cannot put anything else in its place.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/turnback/turnback/cas"
)

// HealedPath is content verify --repair stored again, read from a file
// of the folder that still held it.
type HealedPath struct {
	Path    string `json:"path"`    // the file it was read from, relative to the work tree, slash-separated
	Content string `json:"content"` // the content's address (BLAKE3, hex)
}

// damagedContent collects, in the order verify found them, the stored
// contents found damaged and the paths of files that hold them.
type damagedContent struct {
	order []cas.Hash
	paths map[cas.Hash][]string
}

// add records path p as holding damaged content h. first says verify
// found the store's copy damaged here; otherwise p only adds to content
// already known damaged (a reference's damage is not the store's). A
// nil d collects nothing.
func (d *damagedContent) add(h cas.Hash, p string, first bool) {
	if d == nil {
		return
	}
	if d.paths == nil {
		d.paths = map[cas.Hash][]string{}
	}
	if _, ok := d.paths[h]; !ok {
		if !first {
			return // damage found in a reference, not in the store
		}
		d.order = append(d.order, h)
	}
	if !slices.Contains(d.paths[h], p) { // each snapshot names it again
		d.paths[h] = append(d.paths[h], p)
	}
}

// healFromFolder stores again each damaged content that a file of the
// folder at one of its paths still holds. It returns what it stored.
// Files that are gone, are no longer regular files, cannot be read or
// hold other content are passed over: they are not the content.
func (r *Repo) healFromFolder(ctx context.Context, d *damagedContent) ([]HealedPath, error) {
	if len(d.order) == 0 {
		return nil, nil
	}
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	root, err := os.OpenRoot(r.workTree)
	if err != nil {
		return nil, fmt.Errorf("turnback: repair from the folder: %w", err)
	}
	defer root.Close()
	var out []HealedPath
	for _, h := range d.order {
		for _, p := range d.paths[h] {
			ok, err := r.storeAgainFrom(ctx, root, p, h)
			if err != nil {
				return out, err
			}
			if ok {
				out = append(out, HealedPath{Path: p, Content: h.String()})
				break
			}
		}
	}
	if len(out) > 0 {
		if err := r.backend.Sync(); err != nil {
			return out, fmt.Errorf("turnback: repair from the folder: %w", err)
		}
	}
	return out, nil
}

// storeAgainFrom stores file p of the folder, replacing the stored copy
// of h, when the file holds exactly content h. It reads the file twice:
// once to hash it, then to store it; a file changed in between is
// passed over.
func (r *Repo) storeAgainFrom(ctx context.Context, root *os.Root, p string, h cas.Hash) (bool, error) {
	name := filepath.FromSlash(p)
	got, ok := hashIn(ctx, root, name)
	if !ok || got != h {
		return false, ctx.Err()
	}
	f, size, ok := openRegularIn(root, name)
	if !ok {
		return false, nil
	}
	defer f.Close()
	w := r.store.NewReplacingWriter()
	rd := &readTracker{r: f}
	stored, _, err := w.PutFile(ctx, rd, size)
	if err != nil || stored != h {
		w.Cancel()
		if err != nil && ctx.Err() == nil && rd.err == nil {
			return false, fmt.Errorf("turnback: repair from the folder: store %s: %w", p, err)
		}
		return false, ctx.Err()
	}
	if err := w.Flush(); err != nil {
		return false, fmt.Errorf("turnback: repair from the folder: store %s: %w", p, err)
	}
	return true, nil
}

// hashIn reads file name under root and returns its content address;
// false when it is not a regular file or cannot be read.
func hashIn(ctx context.Context, root *os.Root, name string) (cas.Hash, bool) {
	f, _, ok := openRegularIn(root, name)
	if !ok {
		return cas.Hash{}, false
	}
	defer f.Close()
	h, _, err := cas.HashReader(ctx, f)
	return h, err == nil
}

// openRegularIn opens name under root for reading if it is a regular
// file, without blocking on a FIFO or a device put in its place.
func openRegularIn(root *os.Root, name string) (*os.File, int64, bool) {
	if fi, err := root.Lstat(name); err != nil || !fi.Mode().IsRegular() {
		return nil, 0, false
	}
	f, err := root.OpenFile(name, os.O_RDONLY|openNoBlock, 0)
	if err != nil {
		return nil, 0, false
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, false
	}
	return f, fi.Size(), true
}

// readTracker keeps the error of the file it reads: an error reading
// the folder's file means it does not give the content, one from the
// store is reported.
type readTracker struct {
	r   io.Reader
	err error
}

func (t *readTracker) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		t.err = err
	}
	return n, err
}
