package walker

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnback/turnback/manifest/treetest"
)

func atimeOf(t *testing.T, p string) int64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		t.Fatal(err)
	}
	return st.Atim.Nano()
}

// TestAtimeUntouched: capture leaves access times alone too (invariant
// 7: "not even timestamps"; doc.go: files are opened with O_NOATIME).
// Every atime is set an hour back, so a plain read moves it on a
// relatime mount; the test skips where reads never move atime.
func TestAtimeUntouched(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	treetest.PutAll(t, dir, map[string]string{
		".gitignore":        "*.log\nskipme/\n",
		"a.txt":             "a",
		"x.log":             "ignored",
		"sub/.ignore":       "*.tmp\n",
		"sub/b.txt":         "b",
		"sub/deeper/c.txt":  "c",
		"skipme/d.txt":      "ignored dir",
		"node_modules/e.js": "ignored dir",
	})
	control := filepath.Join(t.TempDir(), "control")
	if err := os.WriteFile(control, []byte("c"), 0o644); err != nil {
		t.Fatal(err)
	}

	s := newStore(t)
	prev := snap(t, dir, s, Options{})
	// New since prev: the large-new-directory rule lists it to count.
	treetest.MustWrite(t, dir, treetest.Tree{"newdir/f.txt": treetest.File("counted for the new-directory rule", 0o644)})

	old := time.Now().Add(-time.Hour)
	atimes := map[string]int64{}
	var paths []string
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		paths = append(paths, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(paths, control) {
		ap := p
		if !filepath.IsAbs(p) {
			ap = filepath.Join(dir, p)
		}
		fi, err := os.Lstat(ap)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(ap, old, fi.ModTime()); err != nil {
			t.Fatal(err)
		}
		atimes[p] = atimeOf(t, ap)
	}
	if _, err := os.ReadFile(control); err != nil {
		t.Fatal(err)
	}
	if atimeOf(t, control) == atimes[control] {
		t.Skip("reads do not update atime on this filesystem (noatime?)")
	}

	snap(t, dir, s, Options{Cache: NewStatCache(s.Backend()), Previous: prev.Root, LargeDirFiles: 10})

	changed := map[string][]string{}
	for _, p := range paths {
		if atimeOf(t, filepath.Join(dir, p)) == atimes[p] {
			continue
		}
		fi, _ := os.Lstat(filepath.Join(dir, p))
		kind := "files"
		switch {
		case fi.IsDir():
			kind = "directories"
		case strings.HasPrefix(filepath.Base(p), ".") && strings.HasSuffix(filepath.Base(p), "ignore"):
			kind = "ignore files"
		}
		changed[kind] = append(changed[kind], p)
	}
	for _, kind := range []string{"files", "directories", "ignore files"} {
		t.Run(kind, func(t *testing.T) {
			if len(changed[kind]) > 0 {
				t.Errorf("capture changed the atime of %s %q", kind, changed[kind])
			}
		})
	}
	t.Run("ignored dirs are never listed", func(t *testing.T) {
		for _, p := range []string{"skipme", "node_modules"} {
			if atimeOf(t, filepath.Join(dir, p)) != atimes[p] {
				t.Errorf("%s was read", p)
			}
		}
	})
}
