//go:build linux && (amd64 || arm64)

package walker

import (
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
)

// TestNamesBesideKindChanged: a name of d/ beside the turn's path that
// was deleted and made again as another kind (a file now a directory,
// a directory now a file or a symlink, a symlink now a directory) is
// a name deleted and one made: a capture reading d/ by name lists d/
// and must see it as a full walk does. The listing's d_type tells the
// kind without an lstat. With and without records (a kind change
// changes d/'s stat, so the record's listing never holds).
func TestNamesBesideKindChanged(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(t *testing.T, dir string)
	}{
		{"file now a dir", func(t *testing.T, dir string) {
			removeAll(t, dir, "d/f30.txt")
			write(t, dir, "d/f30.txt/in.txt", "in")
		}},
		{"dir now a file", func(t *testing.T, dir string) {
			removeAll(t, dir, "d/sub")
			write(t, dir, "d/sub", "a file now")
		}},
		{"dir now a symlink", func(t *testing.T, dir string) {
			removeAll(t, dir, "d/sub")
			symlink(t, dir, "../e", "d/sub")
		}},
		{"symlink now a dir", func(t *testing.T, dir string) {
			removeAll(t, dir, "d/link")
			write(t, dir, "d/link/in.txt", "in")
		}},
		{"file now a symlink", func(t *testing.T, dir string) {
			removeAll(t, dir, "d/f30.txt")
			symlink(t, dir, "f2.txt", "d/f30.txt")
		}},
	}
	for _, tt := range tests {
		for _, records := range []bool{false, true} {
			name := tt.name
			if records {
				name += " records"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				dir := namesTree(t)
				b := cas.NewMemory()
				s := newStoreOn(t, b)
				opts := Options{SizeLimit: 100, LargeDirFiles: 5, Index: &GitIndexes{}}
				if records {
					opts.Cache = NewStatCache(b)
					ageTree(t, dir)
					time.Sleep(settle)
				}
				base := snap(t, dir, s, opts)
				write(t, dir, "d/f1.txt", "the turn's")
				tt.edit(t, dir)
				full := opts
				full.Cache = nil
				full.Previous = base.Root
				want := snap(t, dir, s, full)
				got := snap(t, dir, s, byName(opts, base.Root, []string{"d/f1.txt"}))
				if got.Root != want.Root {
					diffRoots(t, s, got.Root, want.Root)
				}
			})
		}
	}
}

// TestNamesRecordNewerThanBase: the stat cache record of d/ was written
// by a capture after the kind changes, one that Base is not (an undo
// that found nothing to do records no state). Its listing holds, but
// its names' kinds are not Base's: a name Base has as a file and the
// record as a directory must be read, not taken from Base.
func TestNamesRecordNewerThanBase(t *testing.T) {
	t.Parallel()
	dir := namesTree(t)
	b := cas.NewMemory()
	s := newStoreOn(t, b)
	opts := Options{SizeLimit: 100, LargeDirFiles: 5, Index: &GitIndexes{}, Cache: NewStatCache(b)}
	ageTree(t, dir)
	time.Sleep(settle)
	base := snap(t, dir, s, opts)
	removeAll(t, dir, "d/f30.txt")
	write(t, dir, "d/f30.txt/in.txt", "in")
	removeAll(t, dir, "d/sub")
	symlink(t, dir, "../e", "d/sub")
	ageTree(t, dir)
	time.Sleep(settle)
	between := opts
	between.Previous = base.Root
	want := snap(t, dir, s, between) // writes d/'s record: not Base
	got := snap(t, dir, s, byName(opts, base.Root, []string{"d/f1.txt"}))
	if got.Root != want.Root {
		diffRoots(t, s, got.Root, want.Root)
	}
}
