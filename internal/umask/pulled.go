package umask

import "slices"

// Masks are the masks restores have used, in the order first used.
type Masks []uint32

// With is ms with m added, and whether it was missing.
func (ms Masks) With(m uint32) (Masks, bool) {
	if slices.Contains(ms, m) {
		return ms, false
	}
	return append(slices.Clip(ms), m), true
}

// Masked reports whether perm is want's permission bits less those one
// of ms clears: a restore with that mask wrote want as perm.
func (ms Masks) Masked(perm, want uint32) bool {
	for _, m := range ms {
		if perm&0o777 == want&0o777&^m {
			return true
		}
	}
	return false
}
