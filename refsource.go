package turnback

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/cas/ref"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/restore"
)

// refSource is the restore.Source of every restore: content the store
// holds, else content a reference holds (see refs.go), read only through
// a verifier, so that a reference that no longer holds the content fails
// the read instead of yielding other bytes.
type refSource struct{ r *Repo }

func (s refSource) Open(ctx context.Context, h cas.Hash) (io.Reader, error) {
	rd, err := s.r.store.Open(ctx, h)
	if err == nil || !errors.Is(err, cas.ErrNotFound) {
		return rd, err
	}
	rc, why, err := s.r.openRef(ctx, h)
	if err != nil {
		return nil, err
	}
	if rc == nil {
		return nil, fmt.Errorf("turnback: content %s: %s: %w", h.Short(), why, cas.ErrNotFound)
	}
	return rc, nil
}

// provedRefs remembers, per content, the reference verifyRef last read
// that content back from, so that a restore opens that one first rather
// than an earlier reference that still opens but no longer holds it.
type provedRefs struct {
	mu sync.Mutex
	m  map[cas.Hash]ref.Ref
}

func (p *provedRefs) get(h cas.Hash) (ref.Ref, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	x, ok := p.m[h]
	return x, ok
}

func (p *provedRefs) set(h cas.Hash, x ref.Ref) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[cas.Hash]ref.Ref{}
	}
	p.m[h] = x
}

func (p *provedRefs) forget(h cas.Hash) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.m, h)
}

// openRef opens, through a verifier, a reference of content h: the one
// verifyRef last proved to hold h if it is still recorded, else the
// first that opens. When none opens it returns nil and why. A reference
// that opens but holds other content fails the read (the verifier), not
// the open.
func (r *Repo) openRef(ctx context.Context, h cas.Hash) (io.ReadCloser, string, error) {
	rec, err := r.loadRef(ctx, h)
	if err != nil {
		return nil, "", err
	}
	if rec == nil || len(rec.Refs) == 0 {
		// Content over the size limit without a reference never gets
		// here (refActions notes it first): the store lost this.
		return nil, "the store is missing it (damaged: turnback verify lists what else is)", nil
	}
	key := h.String()
	refs := rec.Refs
	if p, ok := r.proved.get(h); ok {
		if i := slices.Index(refs, p); i > 0 {
			refs = append([]ref.Ref{p}, slices.Delete(slices.Clone(refs), i, i+1)...)
		}
	}
	var whys []string
	for _, x := range refs {
		rc, err := ref.Open(x, rec, key)
		if err != nil {
			whys = append(whys, err.Error())
			continue
		}
		return newVerifier(rc, h, rec.Size, ref.Describe(x, rec, key)), "", nil
	}
	return nil, "its reference is gone: " + joinWhy(whys), nil
}

// verifyRef reads content h from its references until one gives exactly
// h, and remembers that one for openRef. It returns "" when one does,
// else why none can restore it.
func (r *Repo) verifyRef(ctx context.Context, h cas.Hash) (string, error) {
	rec, err := r.loadRef(ctx, h)
	if err != nil {
		return "", err
	}
	if rec == nil || len(rec.Refs) == 0 {
		r.proved.forget(h)
		return "its content was never captured (over the size limit, and no Git LFS object, git blob or clone held it)", nil
	}
	key := h.String()
	var whys []string
	for _, x := range rec.Refs {
		rc, err := ref.Open(x, rec, key)
		if err != nil {
			whys = append(whys, err.Error())
			continue
		}
		v := newVerifier(rc, h, rec.Size, ref.Describe(x, rec, key))
		_, err = io.Copy(io.Discard, v)
		v.Close()
		if err == nil {
			r.proved.set(h, x)
			return "", nil
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		whys = append(whys, err.Error())
	}
	r.proved.forget(h)
	return "its reference no longer holds it: " + joinWhy(whys), nil
}

func joinWhy(whys []string) string {
	out := ""
	for i, w := range whys {
		if i > 0 {
			out += "; "
		}
		out += w
	}
	return out
}

// refActions prepares a restore's actions for content held by reference:
// an action whose new content is a file over the size limit gets, for
// the plan, a copy of its entry marked captured when a reference gives
// exactly that content (read and hashed now), so the plan restores it;
// orig keeps the entries as the trees must record them. notes says why
// the others cannot be restored. Content a reference holds and that an
// action replaces needs no copy in the checkpoint: keep lists those.
func (r *Repo) refActions(ctx context.Context, actions []restore.Action) (orig map[string]*manifest.Entry, notes map[string]string, keep map[string]bool, err error) {
	verified := map[cas.Hash]string{}
	check := func(h cas.Hash) (string, error) {
		if why, ok := verified[h]; ok {
			return why, nil
		}
		why, err := r.verifyRef(ctx, h)
		verified[h] = why
		return why, err
	}
	for i := range actions {
		a := &actions[i]
		if a.Old != nil && a.Old.Kind == manifest.KindFile && a.Old.Uncaptured && !a.Old.Hash.IsZero() {
			why, err := check(a.Old.Hash)
			if err != nil {
				return nil, nil, nil, err
			}
			if why == "" {
				if keep == nil {
					keep = map[string]bool{}
				}
				keep[a.Path] = true
			}
		}
		if a.New == nil || a.New.Kind != manifest.KindFile || !a.New.Uncaptured {
			continue
		}
		if notes == nil {
			notes, orig = map[string]string{}, map[string]*manifest.Entry{}
		}
		if a.New.Hash.IsZero() {
			notes[a.Path] = "its content was never captured (unreadable when captured)"
			continue
		}
		why, err := check(a.New.Hash)
		if err != nil {
			return nil, nil, nil, err
		}
		if why != "" {
			notes[a.Path] = why
			continue
		}
		orig[a.Path] = a.New
		e := *a.New
		e.Uncaptured = false
		a.New = &e
	}
	return orig, notes, keep, nil
}
