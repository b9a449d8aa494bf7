//go:build unix

package walker

import (
	"io/fs"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest/treetest"
)

// TestSwappedForSymlink: a directory and a file that are replaced by
// symlinks between the listing and their open are never followed, to
// a directory or file outside the work tree or to one inside it: the
// capture never reads what the link points to (it reports the path
// instead), and nothing outside the work tree reaches the store.
func TestSwappedForSymlink(t *testing.T) {
	outside := t.TempDir()
	treetest.MustWrite(t, outside, treetest.Tree{"secret.txt": treetest.File("outside secret", 0o644)})
	treetest.MustWrite(t, outside, treetest.Tree{"dir/secret2.txt": treetest.File("outside secret 2", 0o644)})
	for _, tc := range []struct{ name, dirTarget, fileTarget string }{
		{"outside", abs(outside, "dir"), abs(outside, "secret.txt")},
		{"inside", "keep", "keep/k.txt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			treetest.PutAll(t, dir, map[string]string{
				"a.txt":      "a",
				"b/x.txt":    "x",
				"c.txt":      "c",
				"keep/k.txt": "kept content",
			})
			check := func(err error) {
				if err != nil {
					t.Error(err)
				}
			}
			var once sync.Once
			swapStat(t, func(fi fs.FileInfo) fileStat {
				if fi.Name() == "a.txt" { // listed and judged before b/ and c.txt
					once.Do(func() {
						check(os.RemoveAll(abs(dir, "b")))
						check(os.Symlink(tc.dirTarget, abs(dir, "b")))
						check(os.Remove(abs(dir, "c.txt")))
						check(os.Symlink(tc.fileTarget, abs(dir, "c.txt")))
					})
				}
				return statOf(fi)
			})
			s := newStore(t)
			res := snap(t, dir, s, Options{})
			got := flatten(t, s, res.Root)
			for _, p := range []string{"b/secret2.txt", "b/k.txt", "b/x.txt"} {
				if _, ok := got[p]; ok {
					t.Errorf("%s captured through the swapped symlink: %v", p, pathsOf(got))
				}
			}
			if e, ok := got["c.txt"]; ok && !e.Uncaptured {
				t.Errorf("c.txt captured with content %s through the swapped symlink", e.Hash)
			}
			for _, content := range []string{"outside secret", "outside secret 2"} {
				if ok, err := s.HasContent(t.Context(), cas.Sum([]byte(content))); err != nil || ok {
					t.Errorf("the store holds %q (err %v)", content, err)
				}
			}
			var probs []string
			for _, p := range res.Stats.Problems {
				probs = append(probs, p.Path)
			}
			if strings.Join(probs, ",") != "b,c.txt" {
				t.Errorf("problems %+v, want b and c.txt", res.Stats.Problems)
			}
		})
	}
}
