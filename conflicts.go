package turnback

import (
	"context"
	"fmt"
	"os"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/pathstate"
	"github.com/turnback/turnback/manifest"
)

// conflictReason says how the path's current state cur differs from the
// state a turn (or undo) left there, or "" if it does not. A current file
// too large to have been captured is hashed from disk to decide.
func (r *Repo) conflictReason(ctx context.Context, p string, cur, left *manifest.Entry) (string, error) {
	switch {
	case cur == nil && left == nil:
		return "", nil
	case cur == nil:
		return fmt.Sprintf("deleted since (it was a %s)", left.Kind), nil
	case left == nil:
		return fmt.Sprintf("created since (now a %s)", cur.Kind), nil
	case cur.Kind != left.Kind:
		return fmt.Sprintf("replaced since (%s, was %s)", cur.Kind, left.Kind), nil
	}
	if cur.Kind == manifest.KindFile && cur.Hash.IsZero() && !left.Hash.IsZero() && cur.Size == left.Size && cur.Mode == left.Mode {
		h, err := r.diskHash(ctx, p)
		if err != nil {
			return "", err
		}
		if h == left.Hash {
			return "", nil
		}
		return "modified since", nil
	}
	if pathstate.Same(cur, left) {
		return "", nil
	}
	if cur.Kind == manifest.KindFile && (cur.Hash != left.Hash || cur.Size != left.Size) {
		return "modified since", nil
	}
	if cur.Kind == manifest.KindSymlink && cur.Target != left.Target {
		return "link target changed since", nil
	}
	if why, decided := pathstate.MetaReason(cur, left); decided { // owner, special bits
		return why, nil
	}
	return fmt.Sprintf("permissions changed since (%04o, was %04o)", cur.Mode, left.Mode), nil
}

// diskHash hashes the regular file at p (never following a symlink).
func (r *Repo) diskHash(ctx context.Context, p string) (cas.Hash, error) {
	root, err := os.OpenRoot(r.workTree)
	if err != nil {
		return cas.Hash{}, err
	}
	defer root.Close()
	fi, err := root.Lstat(p)
	if err != nil {
		return cas.Hash{}, fmt.Errorf("turnback: %s: %w", p, err)
	}
	if !fi.Mode().IsRegular() {
		return cas.Hash{}, fmt.Errorf("turnback: %s is not a regular file", p)
	}
	f, err := root.Open(p)
	if err != nil {
		return cas.Hash{}, fmt.Errorf("turnback: %s: %w", p, err)
	}
	defer f.Close()
	h, _, err := cas.HashReader(ctx, f)
	if err != nil {
		return cas.Hash{}, fmt.Errorf("turnback: %s: %w", p, err)
	}
	return h, nil
}

// storeFile captures the regular file at p in full, whatever its size,
// for a checkpoint (invariant 1: nothing is overwritten or deleted before
// its content is in the store).
func (r *Repo) storeFile(ctx context.Context, p string, e *manifest.Entry) (*manifest.Entry, error) {
	root, err := os.OpenRoot(r.workTree)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	fi, err := root.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("turnback: checkpoint %s: not a readable regular file (%v)", p, err)
	}
	f, err := root.Open(p)
	if err != nil {
		return nil, fmt.Errorf("turnback: checkpoint %s: %w", p, err)
	}
	defer f.Close()
	w := r.store.NewWriter()
	h, n, err := w.PutFile(ctx, f, fi.Size())
	if err != nil {
		w.Cancel()
		return nil, fmt.Errorf("turnback: checkpoint %s: %w", p, err)
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	out := *e
	out.Uncaptured, out.Hash, out.Size = false, h, n
	return &out, nil
}
