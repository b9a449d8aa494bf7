//go:build linux && (amd64 || arm64)

package walker

import (
	"reflect"
	"testing"

	"github.com/turnback/turnback/cas"
)

// TestNamesNestedRepoTracksSkipped: d/node_modules, skipped by Base's
// capture (a built-in name), becomes tracked when d/ becomes a git
// repository that adds it. d/ is read by name for d/f1.txt; its .git is
// lstat'ed (a nested repository) and tracks node_modules, but the
// name, listed and skipped by Base, was taken as skipped still: a full
// walk captures d/node_modules/x.js. No ignore file changed, and
// Base's git index stamps know no d/.git, so nothing else notices.
func TestNamesNestedRepoTracksSkipped(t *testing.T) {
	t.Parallel()
	for _, records := range []bool{false, true} {
		name := "getdents"
		if records {
			name = "records"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := namesTree(t)
			write(t, dir, "d/node_modules/x.js", "vendored")
			b := cas.NewMemory()
			s := newStoreOn(t, b)
			opts := Options{SizeLimit: 100, LargeDirFiles: 5, Index: &GitIndexes{}}
			if records {
				opts.Cache = NewStatCache(b)
			}
			base := snap(t, dir, s, opts)
			if has(pathsOf(flatten(t, s, base.Root)), "d/node_modules") {
				t.Fatal("base captured d/node_modules")
			}
			write(t, dir, "d/f1.txt", "the turn's")
			git(t, abs(dir, "d"), "init", "-q")
			git(t, abs(dir, "d"), "add", "node_modules/x.js")
			full := opts
			full.Cache = nil
			full.Previous = base.Root
			want := snap(t, dir, s, full)
			if !has(pathsOf(flatten(t, s, want.Root)), "d/node_modules/x.js") {
				t.Fatal("full walk did not capture the tracked d/node_modules/x.js")
			}
			got := snap(t, dir, s, byName(opts, base.Root, []string{"d/f1.txt"}))
			if got.Root != want.Root {
				diffRoots(t, s, got.Root, want.Root)
			}
			if !reflect.DeepEqual(got.Skipped, want.Skipped) {
				t.Errorf("skipped:\nby name   %+v\nfull walk %+v", got.Skipped, want.Skipped)
			}
		})
	}
}

// TestNamesKnownNestedRepoByName: a repository d/ already was when Base
// was captured (its index among Base's stamps) does not make d/ read
// whole: a change beside the turn's path stays unread.
func TestNamesKnownNestedRepoByName(t *testing.T) {
	t.Parallel()
	dir := namesTree(t)
	git(t, abs(dir, "d"), "init", "-q")
	git(t, abs(dir, "d"), "add", "f1.txt")
	s := newStore(t)
	opts := Options{SizeLimit: 100, LargeDirFiles: 5, Index: &GitIndexes{}}
	base := snap(t, dir, s, opts)
	write(t, dir, "d/f1.txt", "the turn's")
	write(t, dir, "d/f2.txt", "beside, unread")
	got := snap(t, dir, s, byName(opts, base.Root, []string{"d/f1.txt"}))
	m, bm := flatten(t, s, got.Root), flatten(t, s, base.Root)
	if m["d/f2.txt"].Hash != bm["d/f2.txt"].Hash {
		t.Error("d/f2.txt was read: d/ was read whole")
	}
	if m["d/f1.txt"].Hash == bm["d/f1.txt"].Hash {
		t.Error("d/f1.txt, named, was not read")
	}
}
