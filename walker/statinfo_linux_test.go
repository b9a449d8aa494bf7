//go:build linux && (amd64 || arm64)

package walker

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestStatInfoFields: what statOf, ownerOf and linkOf read straight from
// a listing's statInfo equals what they read through its Sys, and that
// equals os.Lstat's, for each kind of entry.
func TestStatInfoFields(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "f", "data")
	// An mtime in the past: the change time differs from it.
	past := time.Date(2020, 1, 2, 3, 4, 5, 6, time.UTC)
	if err := os.Chtimes(filepath.Join(dir, "f"), past, past); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(dir, "f"), filepath.Join(dir, "g")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("f", filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o750); err != nil {
		t.Fatal(err)
	}
	ents, err := listDir(openRoot(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 4 {
		t.Fatalf("%d entries, want 4", len(ents))
	}
	for _, de := range ents {
		si, ok := asStatInfo(de.fi)
		if !ok {
			t.Fatalf("%s: not a statInfo", de.name)
		}
		ref, err := os.Lstat(filepath.Join(dir, de.name))
		if err != nil {
			t.Fatal(err)
		}
		sys := de.fi.Sys().(*syscall.Stat_t)
		viaSys := fileStat{size: de.fi.Size(), mtime: de.fi.ModTime().UnixNano(), mode: uint32(de.fi.Mode()), ctime: ctimeOf(sys), ino: sys.Ino}
		if got, want := si.fileStat(), statOf(ref); got != want || viaSys != want {
			t.Errorf("%s: stat %+v, through Sys %+v, want %+v", de.name, got, viaSys, want)
		}
		ru, rg, _ := ownerOf(ref)
		if u, g := si.owner(); u != ru || g != rg || sys.Uid != ru || sys.Gid != rg {
			t.Errorf("%s: owner %d:%d, through Sys %d:%d, want %d:%d", de.name, u, g, sys.Uid, sys.Gid, ru, rg)
		}
		rid, rn, _ := linkOf(ref)
		if id, n := si.link(); id != rid || n != rn || uint64(sys.Nlink) != rn || uint64(sys.Dev) != rid.dev {
			t.Errorf("%s: link %+v %d, through Sys %d %d, want %+v %d", de.name, id, n, sys.Dev, sys.Nlink, rid, rn)
		}
		if de.fi.Mode() != ref.Mode() || de.fi.Size() != ref.Size() || !de.fi.ModTime().Equal(ref.ModTime()) || de.fi.Name() != ref.Name() {
			t.Errorf("%s: %v %d %v, want %v %d %v", de.name, de.fi.Mode(), de.fi.Size(), de.fi.ModTime(), ref.Mode(), ref.Size(), ref.ModTime())
		}
	}
}
