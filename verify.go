package turnback

import (
	"context"
	"errors"
	"fmt"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/manifest"
)

// verifyHeld is Verify's check of content h that a tree holds only by
// reference (an entry over the size limit): when the store has h after
// all it is verified as stored content; else, when references were
// recorded for h, they are read until one gives exactly h (verifyRef:
// read in full and hashed with BLAKE3). checked reports whether there
// was anything to verify: content with no recorded reference was never
// protected (capture reported it unprotected), so it is not damage
// found now. byRef says h was read from a reference (not the store).
// why is "" when h is intact, else what is wrong.
func (r *Repo) verifyHeld(ctx context.Context, h cas.Hash) (checked, byRef bool, why string, err error) {
	has, err := r.store.HasContent(ctx, h)
	if err != nil {
		return false, false, "", err
	}
	if has {
		if err := r.store.Verify(ctx, h, nil); err != nil {
			if ctx.Err() != nil {
				return false, false, "", ctx.Err()
			}
			return true, false, err.Error(), nil
		}
		return true, false, "", nil
	}
	rec, err := r.loadRef(ctx, h)
	if errors.Is(err, cas.ErrCorrupt) {
		return true, false, err.Error(), nil // a damaged reference record is damage
	}
	if err != nil {
		return false, false, "", err
	}
	if rec == nil || len(rec.Refs) == 0 {
		return false, false, "", nil
	}
	why, err = r.verifyRef(ctx, h)
	if err != nil {
		return false, false, "", err
	}
	if why != "" {
		why = "over the size limit, held by reference: " + why
	}
	return true, true, why, nil
}

// Verify re-reads and re-hashes every tree and content reachable from
// every recorded snapshot, including content over the size limit held by
// reference (read back from a recorded reference: see verifyHeld).
// Damage is listed by snapshot and path.
func (r *Repo) Verify(ctx context.Context) (*VerifyResult, error) { return r.be.Verify(ctx) }

func (l localRepo) Verify(ctx context.Context) (*VerifyResult, error) { return l.r.verify(ctx, nil) }

// verify is Verify in this process. When damaged is not nil it also
// collects the stored content found damaged or missing, with the paths
// that name it (what verify --repair may store again from the folder).
func (r *Repo) verify(ctx context.Context, damaged *damagedContent) (*VerifyResult, error) {
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	var snaps []cas.Hash
	err := r.backend.Scan(ctx, []byte(model.PrefixSnap), true, func(k, _ []byte) error {
		h, err := cas.ParseHash(string(k[len(model.PrefixSnap):]))
		if err != nil {
			return fmt.Errorf("%w: snapshot key %q", cas.ErrCorrupt, k)
		}
		snaps = append(snaps, h)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := &VerifyResult{Snapshots: len(snaps)}
	seenTree := map[cas.Hash]bool{}
	seenContent := map[cas.Hash]bool{}
	bad := map[cas.Hash]string{}
	loader := manifest.NewStoreLoader(r.store)
	for _, s := range snaps {
		var walk func(h cas.Hash, dir string) error
		walk = func(h cas.Hash, dir string) error {
			if seenTree[h] {
				return nil
			}
			seenTree[h] = true
			out.Trees++
			t, err := loader.LoadTree(ctx, h)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				out.Problems = append(out.Problems, VerifyProblem{Snapshot: s.String(), Path: manifest.DisplayPath(dir), Err: err.Error()})
				return nil
			}
			for i := range t.Entries {
				e := &t.Entries[i]
				p := e.Name
				if dir != "" {
					p = dir + "/" + e.Name
				}
				switch {
				case e.Uncaptured && e.Kind == manifest.KindFile && !e.Hash.IsZero():
					if msg, ok := bad[e.Hash]; ok {
						out.Problems = append(out.Problems, VerifyProblem{Snapshot: s.String(), Path: p, Err: msg})
						damaged.add(e.Hash, p, false)
						continue
					}
					if seenContent[e.Hash] {
						continue
					}
					checked, byRef, why, err := r.verifyHeld(ctx, e.Hash)
					if err != nil {
						return err
					}
					if checked {
						// Unchecked (no reference recorded) stays unseen:
						// an entry that claims it is stored checks it then.
						seenContent[e.Hash] = true
						out.Contents++
						if byRef {
							out.References++
						}
					}
					if why != "" {
						bad[e.Hash] = why
						out.Problems = append(out.Problems, VerifyProblem{Snapshot: s.String(), Path: p, Err: why})
						// The store's own copy is damaged: the folder
						// may give it again. A broken reference is not.
						damaged.add(e.Hash, p, !byRef)
					}
				case e.Uncaptured:
				case e.Kind == manifest.KindDir:
					if err := walk(e.Hash, p); err != nil {
						return err
					}
				case e.Kind == manifest.KindFile:
					if msg, ok := bad[e.Hash]; ok {
						out.Problems = append(out.Problems, VerifyProblem{Snapshot: s.String(), Path: p, Err: msg})
						damaged.add(e.Hash, p, false)
						continue
					}
					if seenContent[e.Hash] {
						continue
					}
					seenContent[e.Hash] = true
					out.Contents++
					if err := r.store.Verify(ctx, e.Hash, nil); err != nil {
						if ctx.Err() != nil {
							return ctx.Err()
						}
						bad[e.Hash] = err.Error()
						out.Problems = append(out.Problems, VerifyProblem{Snapshot: s.String(), Path: p, Err: err.Error()})
						damaged.add(e.Hash, p, true)
					}
				}
			}
			return nil
		}
		if err := walk(s, ""); err != nil {
			return nil, err
		}
		if err := r.verifyRules(ctx, s, seenContent, out); err != nil {
			return nil, err
		}
	}
	if len(out.Problems) > 0 {
		return out, fmt.Errorf("%w: %d problems", ErrVerify, len(out.Problems))
	}
	return out, nil
}
