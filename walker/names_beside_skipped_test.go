//go:build linux && (amd64 || arm64)

package walker

import (
	"reflect"
	"testing"
)

// TestNamesBesideIgnoredGone: an ignored name of d/ beside the turn's
// path, skipped by the base's capture and deleted since, is gone from
// d/'s listing: a capture reading d/ by name must not report it
// skipped still (a full walk does not). Result.Skipped feeds the
// state's memo and its snapshot record (Generated dirs, which undo,
// redo and restore then leave alone as ignored).
func TestNamesBesideIgnoredGone(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		edit func(t *testing.T, dir string)
	}{
		{"ignored file", func(t *testing.T, dir string) { removeAll(t, dir, "d/skip.log") }},
		{"generated dir", func(t *testing.T, dir string) { removeAll(t, dir, "d/gen") }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := namesTree(t)
			write(t, dir, "d/gen/CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n")
			write(t, dir, "d/gen/out.o", "obj")
			s := newStore(t)
			opts := Options{SizeLimit: 100, LargeDirFiles: 5, Index: &GitIndexes{}}
			base := snap(t, dir, s, opts)
			write(t, dir, "d/f1.txt", "the turn's")
			tt.edit(t, dir)
			full := opts
			full.Previous = base.Root
			want := snap(t, dir, s, full)
			got := snap(t, dir, s, byName(opts, base.Root, []string{"d/f1.txt"}))
			if got.Root != want.Root {
				t.Errorf("by name root %s, full walk %s", got.Root.Short(), want.Root.Short())
			}
			if !reflect.DeepEqual(got.Skipped, want.Skipped) {
				t.Errorf("skipped:\nby name   %+v\nfull walk %+v", got.Skipped, want.Skipped)
			}
		})
	}
}
