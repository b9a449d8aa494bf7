//go:build linux

package watch

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// TestBuildWatchesEveryDir: a build, which marks nothing dirty and
// lists with readDir, leaves every non-ignored directory watched, once,
// under its current path, also when directories are renamed, created
// and removed while the build runs (from the Add hook), and after a
// rebuild. Proof: once the watcher is precise again, a file created
// in every directory makes the next Take report exactly every
// directory, and nothing else.
func TestBuildWatchesEveryDir(t *testing.T) {
	mv := func(dir, from, to string) {
		if err := os.Rename(filepath.Join(dir, from), filepath.Join(dir, to)); err != nil && !os.IsNotExist(err) {
			t.Error(err)
		}
	}
	for _, tc := range []struct {
		name string
		// edit runs in the Add hook before the n-th Add of the first
		// build.
		edit    func(dir string, n int64)
		rebuild bool
	}{
		{name: "quiet"},
		{name: "edits during the build", edit: func(dir string, n int64) {
			switch n {
			case 20:
				mv(dir, "d3", "d3moved")
				put(t, dir, "new/a/b/f", "x")
				must(t, os.RemoveAll(filepath.Join(dir, "d5/s2")))
			case 120:
				mv(dir, "d1/s1", "d6/s1x")
				mv(dir, "d3moved/s0", "d3moved/s0y")
			case 200:
				mv(dir, "d7", "d2/s3/d7")
				put(t, dir, "d0/s0/t0/late/f", "x")
			}
		}},
		{name: "rebuild after a doubt", rebuild: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for a := range 8 {
				for b := range 8 {
					for c := range 4 {
						put(t, dir, fmt.Sprintf("d%d/s%d/t%d/f", a, b, c), "x")
					}
				}
			}
			put(t, dir, "node_modules/pkg/f", "x") // ignored by name
			put(t, dir, "gen/out/f", "x")
			put(t, dir, ".gitignore", "gen/\n")
			var adds atomic.Int64
			w := startWatcher(t, dir, Options{}, func(w *Watcher) {
				w.addHook = func(string) error {
					if n := adds.Add(1); tc.edit != nil && w.inStart {
						tc.edit(dir, n)
					}
					return nil
				}
			})
			if tc.rebuild {
				settled(t, w)
				put(t, dir, ".gitignore", "gen/\nd4/\n")
			}
			precise(t, w)
			want := map[string]bool{}
			err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || !d.IsDir() {
					return err
				}
				rel, _ := filepath.Rel(dir, p)
				rel = filepath.ToSlash(rel)
				if rel == "." {
					rel = ""
				}
				switch rel {
				case "node_modules", "gen":
					return filepath.SkipDir
				case "d4":
					if tc.rebuild {
						return filepath.SkipDir
					}
				}
				want[rel] = true
				put(t, dir, filepath.Join(rel, "touched"), "y")
				return nil
			})
			must(t, err)
			ch := settled(t, w)
			if ch.Full {
				t.Fatalf("Take after touching every directory: Full (%s)", ch.Reason)
			}
			for d := range want {
				if !ch.Dirs[d] {
					t.Errorf("%q: a file created in it was not reported", d)
				}
			}
			for d := range ch.Dirs {
				if !want[d] {
					t.Errorf("%q reported, not a directory of the tree", d)
				}
			}
			if t.Failed() {
				t.Logf("reported %d of %d directories", len(ch.Dirs), len(want))
			}
			// The ignore rules still hold once the build has dropped
			// what it kept of them (they are read again as events come).
			put(t, dir, "d0/gen/new/f", "x")
			put(t, dir, "d1/node_modules/p/f", "x")
			put(t, dir, "d2/kept/f", "x")
			ch = settled(t, w)
			if ch.Full || !ch.Dirs["d2"] || !ch.Dirs["d2/kept"] {
				t.Fatalf("Take after new directories: %+v; want d2 and d2/kept, precise", ch)
			}
			for d := range ch.Dirs {
				if d != "d2" && d != "d2/kept" {
					t.Errorf("%q reported: only d2 and d2/kept changed outside ignored directories", d)
				}
			}
		})
	}
}
