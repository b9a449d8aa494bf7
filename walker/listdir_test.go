//go:build unix

package walker

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/manifest/treetest"
)

// TestListDirMatchesLstat: every entry listDir returns (whichever way
// the platform lists: getdents and fstatat on Linux) has the FileInfo
// os.Lstat gives for it, in every field the walker reads: stat-cache
// data, owner, link identity, mode bits (setuid, setgid, sticky, every
// kind), name, size and ModTime. A difference would make the stat
// cache miss for every file (a capture would re-read the whole tree).
func TestListDirMatchesLstat(t *testing.T) {
	dir := t.TempDir()
	treetest.MustWrite(t, dir, treetest.Tree{"plain": treetest.File("data", 0o644)})
	treetest.MustWrite(t, dir, treetest.Tree{"exec": treetest.File("#!/bin/sh", 0o755)})
	treetest.MustWrite(t, dir, treetest.Tree{"suid": treetest.File("x", manifest.FileMode(0o4755))})
	treetest.MustWrite(t, dir, treetest.Tree{"sgid": treetest.File("x", manifest.FileMode(0o2711))})
	if err := os.Mkdir(filepath.Join(dir, "sticky"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "sticky"), 0o1777); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../outside", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("plain", filepath.Join(dir, "link-in")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(dir, "plain"), filepath.Join(dir, "hard")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "empty"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	ents, err := listDir(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"empty", "exec", "fifo", "hard", "link", "link-in", "plain", "sgid", "sticky", "suid"}
	if len(ents) != len(want) {
		t.Fatalf("listed %d entries, want %d", len(ents), len(want))
	}
	for i, de := range ents {
		if de.name != want[i] || de.err != nil {
			t.Fatalf("entry %d: %q (err %v), want %q", i, de.name, de.err, want[i])
		}
		fi, err := os.Lstat(filepath.Join(dir, de.name))
		if err != nil {
			t.Fatal(err)
		}
		got := de.fi
		if got.Name() != fi.Name() || got.Mode() != fi.Mode() || got.Size() != fi.Size() || !got.ModTime().Equal(fi.ModTime()) || got.IsDir() != fi.IsDir() {
			t.Errorf("%s: listed %v %v %d %v, lstat %v %v %d %v", de.name, got.Name(), got.Mode(), got.Size(), got.ModTime(), fi.Name(), fi.Mode(), fi.Size(), fi.ModTime())
		}
		if statOf(got) != statOf(fi) {
			t.Errorf("%s: stat data %+v, lstat %+v", de.name, statOf(got), statOf(fi))
		}
		gu, gg, gok := ownerOf(got)
		wu, wg, wok := ownerOf(fi)
		if gu != wu || gg != wg || gok != wok {
			t.Errorf("%s: owner %d:%d %v, lstat %d:%d %v", de.name, gu, gg, gok, wu, wg, wok)
		}
		gid, gn, gok := linkOf(got)
		wid, wn, wok := linkOf(fi)
		if gid != wid || gn != wn || gok != wok {
			t.Errorf("%s: link %v %d %v, lstat %v %d %v", de.name, gid, gn, gok, wid, wn, wok)
		}
	}
}

// TestListDirEmpty: an empty directory lists as empty.
func TestListDirEmpty(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	ents, err := listDir(root)
	if err != nil || len(ents) != 0 {
		t.Fatalf("empty directory: %d entries, %v", len(ents), err)
	}
}

// TestListDirLarge: a directory whose listing fills the getdents buffer
// four times over is listed whole and sorted: 1,500 entries of 88
// bytes, 132 KB, in buffers of 32 KB (direntBufs).
func TestListDirLarge(t *testing.T) {
	dir := t.TempDir()
	const n = 1500
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%04d-%s", n-1-i, strings.Repeat("x", 60))
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	ents, err := listDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != n {
		t.Fatalf("listed %d entries, want %d", len(ents), n)
	}
	for i, de := range ents {
		if want := fmt.Sprintf("%04d-%s", i, strings.Repeat("x", 60)); de.name != want || de.fi == nil || !de.fi.Mode().IsRegular() {
			t.Fatalf("entry %d: %q, want %q", i, de.name, want)
		}
	}
}
