package cli

// The crash tests' fixture: a work tree of about 1,200 paths and a turn
// that touches all of them (every kind of change, type flips included).

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

type crashTree struct {
	t    testing.TB
	root string
}

func (c crashTree) abs(rel string) string { return filepath.Join(c.root, filepath.FromSlash(rel)) }

func (c crashTree) write(rel string, perm fs.FileMode, data []byte) {
	c.t.Helper()
	p := c.abs(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		c.t.Fatal(err)
	}
	if err := os.Chmod(p, perm); err != nil {
		c.t.Fatal(err)
	}
}

func (c crashTree) mkdir(rel string, perm fs.FileMode) {
	c.t.Helper()
	if err := os.MkdirAll(c.abs(rel), 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := os.Chmod(c.abs(rel), perm); err != nil {
		c.t.Fatal(err)
	}
}

func (c crashTree) symlink(target, rel string) {
	c.t.Helper()
	if err := os.MkdirAll(filepath.Dir(c.abs(rel)), 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := os.Symlink(target, c.abs(rel)); err != nil {
		c.t.Fatal(err)
	}
}

func (c crashTree) remove(rel string) {
	c.t.Helper()
	if err := os.RemoveAll(c.abs(rel)); err != nil {
		c.t.Fatal(err)
	}
}

func (c crashTree) chmod(rel string, perm fs.FileMode) {
	c.t.Helper()
	if err := os.Chmod(c.abs(rel), perm); err != nil {
		c.t.Fatal(err)
	}
}

func (c crashTree) read(rel string) []byte {
	c.t.Helper()
	data, err := os.ReadFile(c.abs(rel))
	if err != nil {
		c.t.Fatal(err)
	}
	return data
}

func crashContent(rng *rand.Rand, size int, binary bool, tag string) []byte {
	if binary {
		b := make([]byte, size+8)
		for i := 0; i < size; i += 8 {
			v := rng.Uint64()
			for j := 0; j < 8; j++ {
				b[i+j] = byte(v >> (8 * j))
			}
		}
		return b[:size]
	}
	var buf bytes.Buffer
	for n := 0; buf.Len() < size; n++ {
		fmt.Fprintf(&buf, "%s line %d: value %d\n", tag, n, rng.IntN(1_000_000))
	}
	return buf.Bytes()[:size]
}

func crashSize(rng *rand.Rand) int {
	switch r := rng.IntN(100); {
	case r < 5:
		return 0
	case r < 70:
		return 1 + rng.IntN(400)
	case r < 92:
		return 400 + rng.IntN(8<<10)
	case r < 99:
		return 8<<10 + rng.IntN(56<<10)
	default:
		return 64<<10 + rng.IntN(236<<10)
	}
}

// crashBuildOld writes the old state (deterministic): 950 files in
// pkgNN/subN, a deep chain, big chunked files, symlinks (one dangling,
// one to a directory) and empty directories. It returns the regular
// files' paths.
func crashBuildOld(c crashTree) []string {
	rng := rand.New(rand.NewPCG(20240601, 1))
	var files []string
	file := func(rel string, perm fs.FileMode, data []byte) {
		c.write(rel, perm, data)
		files = append(files, rel)
	}
	for d := 0; d < 10; d++ {
		for s := 0; s < 5; s++ {
			for f := 0; f < 19; f++ {
				rel := fmt.Sprintf("pkg%02d/sub%d/f%03d.txt", d, s, f)
				perm := fs.FileMode(0o644)
				switch {
				case f%7 == 3:
					perm = 0o755
				case f%11 == 5:
					perm = 0o600
				}
				file(rel, perm, crashContent(rng, crashSize(rng), f%5 == 4, rel))
			}
		}
		c.mkdir(fmt.Sprintf("pkg%02d/empty", d), 0o755)
		c.symlink("sub0/f000.txt", fmt.Sprintf("pkg%02d/link0", d))
		c.symlink("sub1", fmt.Sprintf("pkg%02d/link1", d))
		c.symlink("../nowhere/x", fmt.Sprintf("pkg%02d/dangling", d))
	}
	for i := 0; i < 10; i++ {
		rel := fmt.Sprintf("deep/a/b/c/d/e/f%d.bin", i)
		file(rel, 0o644, crashContent(rng, crashSize(rng), true, rel))
	}
	file("README.md", 0o644, crashContent(rng, 3000, false, "readme"))
	file("Makefile", 0o755, crashContent(rng, 500, false, "make"))
	file(".env", 0o600, []byte("SECRET=1\n"))
	file("big1.bin", 0o644, crashContent(rng, 2_500_000, true, ""))
	file("big2.txt", 0o644, crashContent(rng, 1_500_000, false, "big2"))
	c.mkdir("emptyroot", 0o755)
	c.mkdir("emptyroot/nested", 0o755)
	return files
}

// crashMakeTurn turns the old state into the new one: content edits
// (same size and new size), chmods, deletions, creations, whole subtrees
// created, deleted and moved, and every kind of type flip.
func crashMakeTurn(c crashTree, oldFiles []string) {
	rng := rand.New(rand.NewPCG(7, 7))
	reservedDirs := []string{"pkg01/sub2/", "pkg03/sub4/", "pkg04/sub3/", "pkg09/sub0/", "pkg05/sub3/"}
	reservedFiles := map[string]bool{
		"pkg00/sub0/f000.txt": true, "pkg02/sub1/f005.txt": true, "pkg02/sub1/f006.txt": true,
		"pkg06/sub0/f010.txt": true, "pkg04/sub2/f001.txt": true, "big1.bin": true, "big2.txt": true,
		"README.md": true, "Makefile": true,
	}
	toggle := func(rel string) {
		fi, err := os.Lstat(c.abs(rel))
		if err != nil {
			c.t.Fatal(err)
		}
		switch fi.Mode().Perm() {
		case 0o755:
			c.chmod(rel, 0o644)
		case 0o600:
			c.chmod(rel, 0o640)
		default:
			c.chmod(rel, 0o755)
		}
	}
	edit := func(rel string) {
		data := c.read(rel)
		if len(data) > 16 && rng.IntN(2) == 0 {
			// Same size, different bytes.
			i := rng.IntN(len(data) - 8)
			for j := i; j < i+8; j++ {
				data[j] ^= 0x5a
			}
		} else {
			data = crashContent(rng, crashSize(rng)+1, rng.IntN(5) == 0, "new "+rel)
		}
		fi, err := os.Lstat(c.abs(rel))
		if err != nil {
			c.t.Fatal(err)
		}
		c.write(rel, fi.Mode().Perm(), data)
	}
next:
	for _, rel := range oldFiles {
		if reservedFiles[rel] {
			continue
		}
		for _, d := range reservedDirs {
			if strings.HasPrefix(rel, d) {
				continue next
			}
		}
		switch r := rng.IntN(100); {
		case r < 40:
			edit(rel)
		case r < 48:
			toggle(rel)
		case r < 51:
			edit(rel)
			toggle(rel)
		case r < 66:
			c.remove(rel)
		}
	}
	// New files in existing directories.
	for d := 0; d < 10; d++ {
		for s := 0; s < 5; s++ {
			dir := fmt.Sprintf("pkg%02d/sub%d", d, s)
			if fi, err := os.Lstat(c.abs(dir)); err != nil || !fi.IsDir() || slices.Contains(reservedDirs, dir+"/") {
				continue
			}
			for f := 0; f < 8; f++ {
				rel := fmt.Sprintf("%s/new%02d.txt", dir, f)
				perm := fs.FileMode(0o644)
				if f == 2 {
					perm = 0o755
				}
				c.write(rel, perm, crashContent(rng, crashSize(rng), f == 3, rel))
			}
		}
	}
	// New directories (each under the 200-file "new large directory"
	// limit, which counts files recursively).
	for i := 0; i < 280; i++ {
		dir := []string{"newpkg/a", "newpkg/a/b", "newpkg/c/d/e", "newpkg2/x", "newpkg2/y"}[i%5]
		rel := fmt.Sprintf("%s/n%03d.go", dir, i)
		c.write(rel, 0o644, crashContent(rng, crashSize(rng), false, rel))
	}
	c.mkdir("newpkg/empty", 0o755)
	c.mkdir("newpkg/private", 0o700)
	c.symlink("a/b", "newpkg/link")
	c.chmod("newpkg/c", 0o750)
	// Whole subtrees deleted and moved.
	c.remove("pkg03/sub4")
	if err := os.Rename(c.abs("pkg09/sub0"), c.abs("pkg09/sub0-moved")); err != nil {
		c.t.Fatal(err)
	}
	c.remove("deep/a/b/c/d")
	c.write("deep/a/b/c/new.txt", 0o644, []byte("deep new\n"))
	c.chmod("deep/a/b", 0o711)
	// Type flips (crashFlips lists them).
	c.remove("pkg00/sub0/f000.txt") // file -> dir with content
	c.write("pkg00/sub0/f000.txt/inner.txt", 0o644, []byte("inner\n"))
	c.write("pkg00/sub0/f000.txt/deeper/x.bin", 0o755, crashContent(rng, 5000, true, ""))
	c.remove("pkg01/sub2") // dir with content -> file
	c.write("pkg01/sub2", 0o644, []byte("was a directory\n"))
	c.remove("pkg04/sub3") // dir with content -> symlink (to a directory inside the tree)
	c.symlink("../pkg05/sub3", "pkg04/sub3")
	c.remove("pkg05/link1") // symlink -> dir with content
	for i := 0; i < 3; i++ {
		c.write(fmt.Sprintf("pkg05/link1/g%d.txt", i), 0o644, crashContent(rng, 100*i, false, "g"))
	}
	c.remove("pkg07/dangling") // symlink -> dir holding a symlink
	c.symlink("../../pkg07", "pkg07/dangling/up")
	c.remove("pkg02/sub1/f005.txt") // file -> symlink
	c.symlink("f006.txt", "pkg02/sub1/f005.txt")
	c.remove("pkg03/link0") // symlink -> file
	c.write("pkg03/link0", 0o755, []byte("#!/bin/sh\necho was a link\n"))
	c.remove("pkg04/link0") // symlink retargeted
	c.symlink("sub2/f001.txt", "pkg04/link0")
	c.remove("pkg05/dangling")
	c.remove("pkg06/empty") // empty dir -> file
	c.write("pkg06/empty", 0o600, []byte("now a file\n"))
	c.remove("pkg06/sub0/f010.txt") // file -> empty dir
	c.mkdir("pkg06/sub0/f010.txt", 0o755)
	c.remove("pkg08/link1") // symlink -> empty dir
	c.mkdir("pkg08/link1", 0o755)
	c.remove("pkg08/empty") // empty dir -> symlink
	c.symlink("sub0", "pkg08/empty")
	// Directory permissions, empty directories, root files.
	c.chmod("pkg07", 0o700)
	c.chmod("pkg07/sub1", 0o750)
	c.mkdir("pkg08/newempty", 0o755)
	c.remove("pkg09/empty")
	c.remove("emptyroot/nested")
	big := c.read("big1.bin")
	for i := 1_200_000; i < 1_200_100; i++ {
		big[i] ^= 0xff
	}
	c.write("big1.bin", 0o644, big)
	c.remove("big2.txt")
	c.write("README.md", 0o644, append(c.read("README.md"), "one more line\n"...))
	c.chmod("Makefile", 0o644)
	c.write("NEW.md", 0o644, []byte("new at the root\n"))
}

// crashFlips are the paths whose type the turn changes.
var crashFlips = []string{
	"pkg00/sub0/f000.txt", "pkg01/sub2", "pkg04/sub3", "pkg05/link1", "pkg07/dangling",
	"pkg02/sub1/f005.txt", "pkg03/link0", "pkg06/empty", "pkg06/sub0/f010.txt", "pkg08/link1", "pkg08/empty",
}
