//go:build unix

package walker

import (
	"context"
	"io/fs"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/manifest/treetest"
)

// TestUnreadable: unreadable files and directories are reported and
// recorded uncaptured; the capture goes on. An unreadable work-tree root
// aborts it.
func TestUnreadable(t *testing.T) {
	if rerunUnprivileged(t) {
		return
	}
	t.Parallel()
	dir := t.TempDir()
	treetest.PutAll(t, dir, map[string]string{
		"ok.txt":           "fine",
		"secret.txt":       "no peeking",
		"locked/inner.txt": "inner",
		"noexec/inner.txt": "inner",
		"wxonly/inner.txt": "inner",
		"sub/deep/secret":  "deep",
		"sub/deep/ok":      "deep ok",
	})
	modes := map[string]uint32{"secret.txt": 0, "locked": 0, "noexec": 0o644, "wxonly": 0o300, "sub/deep/secret": 0o200}
	for p, m := range modes {
		chmod(t, dir, p, m)
	}
	t.Cleanup(func() {
		for p := range modes {
			os.Chmod(abs(dir, p), 0o755)
		}
	})
	if _, err := os.ReadFile(abs(dir, "secret.txt")); err == nil {
		t.Skip("permission bits do not stop reads here")
	}
	s := newStore(t)
	cache := NewStatCache(s.Backend())
	res := snap(t, dir, s, Options{Cache: cache})

	wantProblems := []string{"locked", "noexec", "secret.txt", "sub/deep/secret", "wxonly"}
	if got := problemPaths(res); strings.Join(got, ",") != strings.Join(wantProblems, ",") {
		t.Errorf("problems %+v, want paths %q", res.Stats.Problems, wantProblems)
	}
	for _, p := range res.Stats.Problems {
		if !strings.Contains(p.Err, "permission denied") {
			t.Errorf("%s: error %q", p.Path, p.Err)
		}
	}
	var uncapt []string
	for _, u := range res.Stats.Uncaptured {
		uncapt = append(uncapt, u.Path+":"+u.Kind)
	}
	if got, want := strings.Join(uncapt, ","), "locked:dir,noexec:dir,secret.txt:file,sub/deep/secret:file,wxonly:dir"; got != want {
		t.Errorf("uncaptured %s, want %s", got, want)
	}
	got := flatten(t, s, res.Root)
	wantEntries := map[string]manifest.Entry{
		"secret.txt":      {Name: "secret.txt", Kind: manifest.KindFile, Mode: 0, Size: 10, Uncaptured: true},
		"sub/deep/secret": {Name: "secret", Kind: manifest.KindFile, Mode: 0o200, Size: 4, Uncaptured: true},
		"locked":          {Name: "locked", Kind: manifest.KindDir, Mode: 0, Uncaptured: true},
		"noexec":          {Name: "noexec", Kind: manifest.KindDir, Mode: 0o644, Uncaptured: true},
		"wxonly":          {Name: "wxonly", Kind: manifest.KindDir, Mode: 0o300, Uncaptured: true},
		"ok.txt":          {Name: "ok.txt", Kind: manifest.KindFile, Mode: 0o644, Size: 4, Hash: cas.Sum([]byte("fine"))},
		"sub/deep/ok":     {Name: "ok", Kind: manifest.KindFile, Mode: 0o644, Size: 7, Hash: cas.Sum([]byte("deep ok"))},
	}
	for p, want := range wantEntries {
		if got[p] != want {
			t.Errorf("%s: %+v, want %+v", p, got[p], want)
		}
	}
	if _, ok := got["locked/inner.txt"]; ok {
		t.Error("content of an unreadable dir recorded")
	}
	t.Run("unchanged", func(t *testing.T) {
		// Nothing changed: the same root, the same problems (every
		// unreadable path is still unreadable and must still be listed).
		again := snap(t, dir, s, Options{Cache: cache, Previous: res.Root})
		if again.Root != res.Root {
			t.Error("root changed")
		}
		if got := problemPaths(again); strings.Join(got, ",") != strings.Join(wantProblems, ",") {
			t.Errorf("problems %+v, want paths %q", again.Stats.Problems, wantProblems)
		}
	})
	t.Run("readable again", func(t *testing.T) {
		// Made readable, the paths are captured: they were uncaptured
		// because they could not be read, not by the new-directory rule.
		for p := range modes {
			chmod(t, dir, p, 0o755)
		}
		fixed := snap(t, dir, s, Options{Cache: cache, Previous: res.Root})
		got := flatten(t, s, fixed.Root)
		for p := range modes {
			if e := got[p]; e.Uncaptured {
				t.Errorf("%s: still uncaptured: %+v (%+v)", p, e, fixed.Stats.Uncaptured)
			}
		}
	})
	t.Run("unreadable root aborts", func(t *testing.T) {
		r := openRoot(t, dir)
		chmod(t, dir, ".", 0)
		defer chmod(t, dir, ".", 0o755)
		if res, err := Capture(context.Background(), r, s, Options{}); err == nil {
			t.Errorf("capture of an unreadable root succeeded: %+v", res.Stats)
		}
	})
}

// TestChangedWhileRead: a file whose stat data differ before and after
// the read is read again; one that never settles is uncaptured and
// reported.
func TestChangedWhileRead(t *testing.T) {
	dir := t.TempDir()
	treetest.PutAll(t, dir, map[string]string{
		"flaky":   "flaky content",
		"settles": "settles eventually",
		"calm":    "calm",
	})
	var mu sync.Mutex
	calls := map[string]int64{}
	swapStat(t, func(fi fs.FileInfo) fileStat {
		st := statOf(fi)
		mu.Lock()
		defer mu.Unlock()
		calls[fi.Name()]++
		switch fi.Name() {
		case "flaky": // a new mtime at every look
			st.mtime += calls["flaky"]
		case "settles": // different for the first three looks only
			st.mtime += min(calls["settles"], 3)
		}
		return st
	})
	s := newStore(t)
	res := snap(t, dir, s, Options{Cache: NewStatCache(s.Backend())})
	if len(res.Stats.Problems) != 1 || res.Stats.Problems[0].Path != "flaky" || res.Stats.Problems[0].Err != "changed while being read" {
		t.Errorf("problems %+v, want flaky: changed while being read", res.Stats.Problems)
	}
	if len(res.Stats.Uncaptured) != 1 || res.Stats.Uncaptured[0].Path != "flaky" || !strings.Contains(res.Stats.Uncaptured[0].Reason, "changed while being read") {
		t.Errorf("uncaptured %+v", res.Stats.Uncaptured)
	}
	got := flatten(t, s, res.Root)
	if e := got["flaky"]; !e.Uncaptured || !e.Hash.IsZero() || e.Size != int64(len("flaky content")) {
		t.Errorf("flaky: %+v, want uncaptured", e)
	}
	if e := got["settles"]; e.Uncaptured || e.Hash != cas.Sum([]byte("settles eventually")) {
		t.Errorf("settles: %+v, want captured", e)
	}
	// calm once, settles at least twice, flaky maxAttempts times.
	if min := int64(1 + 2 + maxAttempts); res.Stats.HashedFiles < min || res.Stats.HashedFiles > 1+maxAttempts+maxAttempts {
		t.Errorf("read %d times, want %d..%d", res.Stats.HashedFiles, min, 1+2*maxAttempts)
	}
}

// TestVanishedFile: a file deleted between the listing and the read is
// left out, without a problem.
func TestVanishedFile(t *testing.T) {
	dir := t.TempDir()
	treetest.MustWrite(t, dir, treetest.Tree{"a.txt": treetest.File("a", 0o644)})
	treetest.MustWrite(t, dir, treetest.Tree{"gone.txt": treetest.File("soon gone", 0o644)})
	var once sync.Once
	swapStat(t, func(fi fs.FileInfo) fileStat {
		if fi.Name() == "gone.txt" {
			once.Do(func() { os.Remove(abs(dir, "gone.txt")) })
		}
		return statOf(fi)
	})
	s := newStore(t)
	res := snap(t, dir, s, Options{})
	if got := strings.Join(pathsOf(flatten(t, s, res.Root)), ","); got != "a.txt" {
		t.Errorf("snapshot paths %s, want a.txt", got)
	}
	if len(res.Stats.Problems) != 0 || len(res.Stats.Uncaptured) != 0 {
		t.Errorf("problems %+v, uncaptured %+v", res.Stats.Problems, res.Stats.Uncaptured)
	}
	t.Run("Stats.Files", func(t *testing.T) {
		if res.Stats.Files != 1 {
			t.Errorf("Stats.Files = %d, but the tree holds 1 file (Stats.Files is documented as the regular files in the tree; "+
				"the vanished file was counted before it was read)", res.Stats.Files)
		}
	})
}

// TestVanishedDir: a directory deleted between the listing and its
// descent is left out like a vanished file. Recording it as an
// uncaptured directory would be wrong twice over: it is not on disk, and
// uncaptured directories stay uncaptured while they exist, so a later
// directory of that name would never be captured.
func TestVanishedDir(t *testing.T) {
	dir := t.TempDir()
	treetest.MustWrite(t, dir, treetest.Tree{"a.txt": treetest.File("a", 0o644)}) // listed before b/, sorted
	treetest.MustWrite(t, dir, treetest.Tree{"b/x.txt": treetest.File("x", 0o644)})
	var once sync.Once
	swapStat(t, func(fi fs.FileInfo) fileStat {
		if fi.Name() == "a.txt" {
			once.Do(func() { os.RemoveAll(abs(dir, "b")) })
		}
		return statOf(fi)
	})
	s := newStore(t)
	res := snap(t, dir, s, Options{})
	got := flatten(t, s, res.Root)
	if e, ok := got["b"]; ok {
		t.Errorf("vanished dir recorded as %+v (problems %+v)", e, res.Stats.Problems)
	}
	if len(res.Stats.Problems) != 0 || len(res.Stats.Uncaptured) != 0 {
		t.Errorf("problems %+v, uncaptured %+v", res.Stats.Problems, res.Stats.Uncaptured)
	}
	// The consequence: b/ comes back with one small file and, with this
	// snapshot as Previous, stays uncaptured.
	treetest.MustWrite(t, dir, treetest.Tree{"b/y.txt": treetest.File("y", 0o644)})
	next := snap(t, dir, s, Options{Previous: res.Root})
	if e := flatten(t, s, next.Root)["b"]; !e.IsCapturedDir() {
		t.Errorf("recreated b/ (1 file) with the previous snapshot as Previous: %+v, want captured", e)
	}
}

// TestNothingWritten: Capture changes nothing in the work tree (invariant
// 7): no path is created or removed, and no path's kind, permission
// bits, size, content, mtime, ctime or inode changes.
func TestNothingWritten(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	build(t, dir, captureNodes())
	treetest.PutAll(t, dir, map[string]string{
		".gitignore":     "*.log\nignored/\n",
		"x.log":          "ignored",
		"ignored/y":      "ignored",
		"node_modules/z": "ignored",
	})
	treetest.MustWrite(t, dir, treetest.Tree{"huge": treetest.File(strings.Repeat("h", 2000), 0o644)})
	s := newStore(t)
	cache := NewStatCache(s.Backend())
	opts := Options{Cache: cache, SizeLimit: 1000, LargeDirFiles: 10}
	first := snap(t, dir, s, opts)
	addFiles(t, dir, "newbig", 15)
	addFiles(t, dir, "newsmall", 3)
	time.Sleep(settle)
	before := statSnapshot(t, dir)
	opts.Previous = first.Root
	for range 3 { // fill the cache, then use it
		res := snap(t, dir, s, opts)
		opts.Previous = res.Root
	}
	snap(t, dir, s, Options{}) // and with no options at all
	if d := diffSnapshots(before, statSnapshot(t, dir)); len(d) > 0 {
		t.Errorf("capture changed the work tree:\n%s", strings.Join(d, "\n"))
	}
}
