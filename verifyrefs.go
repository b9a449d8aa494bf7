package turnback

import (
	"context"
	"errors"

	"github.com/turnback/turnback/cas"
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
