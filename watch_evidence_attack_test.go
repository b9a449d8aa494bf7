//go:build linux

package turnback

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// cacheDirTag is a valid CACHEDIR.TAG (the signature line is what counts).
const cacheDirTag = "Signature: 8a477f597d28d172789f06886806bc55\n"

// TestWatchEvidenceMarkerRemoved: a directory skipped for its evidence
// (a CACHEDIR.TAG) when the watcher was built stops being generated when
// the marker is removed: the walker captures it again. The watcher
// watches the directory itself, so the removal has an event, but it
// judges the marker's path inside a directory it holds as ignored and
// may mark nothing: the daemon's next capture may keep it skipped,
// where a full walk captures its files. Worse, nothing below it is
// watched: a file made later in a subdirectory is never seen. The same
// goes for a tag rewritten without its signature.
func TestWatchEvidenceMarkerRemoved(t *testing.T) {
	ctx := t.Context()
	for _, tc := range []struct {
		name, dir, marker, data string
		rewrite                 bool // the marker is rewritten, not removed
	}{
		{"cachedir tag", "cache", "CACHEDIR.TAG", cacheDirTag, false},
		{"cachedir tag rewritten", "cache", "CACHEDIR.TAG", cacheDirTag, true},
		{"pyvenv", "venv", "pyvenv.cfg", "home = /usr/bin\n", false},
		{"package lock", "node_modules", ".package-lock.json", "{}\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wt, store := t.TempDir(), t.TempDir()
			writeFile(t, filepath.Join(wt, "a.txt"), "a")
			writeFile(t, filepath.Join(wt, tc.dir, tc.marker), tc.data)
			writeFile(t, filepath.Join(wt, tc.dir, "keep.txt"), "keep")
			writeFile(t, filepath.Join(wt, tc.dir, "sub", "deep.txt"), "deep")
			r, err := Open(ctx, wt, Options{Store: store})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if err := r.Watch(ctx, WatchOptions{}); err != nil {
				t.Fatal(err)
			}
			if res, err := r.Snap(ctx, "with the marker"); err != nil {
				t.Fatal(err)
			} else if want := fullWalkOf(t, wt); res.Snapshot != want.Root {
				t.Fatalf("snap with the marker = %s, full walk %s", res.Snapshot.Short(), want.Root.Short())
			}
			if tc.rewrite {
				writeFile(t, filepath.Join(wt, tc.dir, tc.marker), "no signature\n")
			} else if err := os.Remove(filepath.Join(wt, tc.dir, tc.marker)); err != nil {
				t.Fatal(err)
			}
			res, err := r.Snap(ctx, "marker removed")
			if err != nil {
				t.Fatal(err)
			}
			if want := fullWalkOf(t, wt); res.Snapshot != want.Root || res.Files != want.Stats.Files {
				t.Fatalf("snap after the marker's removal (watch %+v) = %s (%d files), full walk %s (%d files): %s/ stays skipped",
					res.Watch, res.Snapshot.Short(), res.Files, want.Root.Short(), want.Stats.Files, tc.dir)
			}
			// And a file made later in its subdirectory is seen too.
			writeFile(t, filepath.Join(wt, tc.dir, "sub", "later.txt"), "later")
			res, err = r.Snap(ctx, "later")
			if err != nil {
				t.Fatal(err)
			}
			if want := fullWalkOf(t, wt); res.Snapshot != want.Root || res.Files != want.Stats.Files {
				t.Fatalf("snap after a file in %s/sub (watch %+v) = %s (%d files), full walk %s (%d files)",
					tc.dir, res.Watch, res.Snapshot.Short(), res.Files, want.Root.Short(), want.Stats.Files)
			}
		})
	}
}

// TestWatchMarkerOfOtherNameNoRescan: a marker file that shows nothing
// for its directory's name (CMakeCache.txt in src/: only build/, dist/,
// target/ and out/ take it as evidence) does not make the watcher
// list src/ and everything below it again: the next capture reads src/
// and the root only.
func TestWatchMarkerOfOtherNameNoRescan(t *testing.T) {
	ctx := t.Context()
	wt, store := t.TempDir(), t.TempDir()
	for i := range 5 {
		writeFile(t, filepath.Join(wt, "src", fmt.Sprint("p", i), "q", "f.go"), "go")
	}
	r, err := Open(ctx, wt, Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Watch(ctx, WatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Snap(ctx, "first"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(wt, "src", "CMakeCache.txt"), "cache")
	res, err := r.Snap(ctx, "cmake cache")
	if err != nil {
		t.Fatal(err)
	}
	if want := fullWalkOf(t, wt); res.Snapshot != want.Root {
		t.Fatalf("snap = %s, full walk %s", res.Snapshot.Short(), want.Root.Short())
	}
	if res.Watch == nil || !res.Watch.Incremental || res.Watch.DirsRead != 2 {
		t.Fatalf("snap after src/CMakeCache.txt: %+v; want incremental, 2 directories read", res.Watch)
	}
}
