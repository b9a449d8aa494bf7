//go:build unix

package restore

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnback/turnback/manifest"
)

// TestUnownedInNewDirs: as root, entries recorded without an owner that
// go into directories the restore creates take the owner of the nearest
// directory on disk, as those directories do, not root's.
func TestUnownedInNewDirs(t *testing.T) {
	if !asRoot {
		t.Skip("needs root")
	}
	const user = 4321
	e := newEnv(t)
	if err := os.Chown(e.dir, user, user); err != nil {
		t.Fatal(err)
	}
	dir := func(name string) *manifest.Entry {
		return &manifest.Entry{Name: name, Kind: manifest.KindDir, Mode: 0o755, Hash: e.put("t")}
	}
	file := &manifest.Entry{Name: "f", Kind: manifest.KindFile, Mode: 0o644, Size: 3, Hash: e.put("new")}
	link := &manifest.Entry{Name: "l", Kind: manifest.KindSymlink, Mode: 0o777, Size: 1, Target: "f"}
	as := []Action{{Path: "a", New: dir("a")}, {Path: "a/b", New: dir("b")}, {Path: "a/b/f", New: file}, {Path: "a/b/l", New: link}}
	if _, err := Apply(context.Background(), e.root(), e.plan(as), e.opts()); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a", "a/b", "a/b/f", "a/b/l"} {
		if uid, gid, _ := ownerOf(t, filepath.Join(e.dir, p)); uid != user || gid != user {
			t.Errorf("%s owned by %d:%d, want %d", p, uid, gid, user)
		}
	}
}
