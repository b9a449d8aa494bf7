package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/turnback/turnback/internal/testtier"
)

// mountTmpfs mounts a tmpfs of size MiB at a new directory, or skips the
// test when that is not allowed (not root, no mount namespace).
func mountTmpfs(t *testing.T, mib int) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%dm", mib), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (needs root): %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// fillDisk writes a file in dir until the file system is full.
func fillDisk(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	small := make([]byte, 4096)
	for {
		if _, err := f.Write(small); err != nil {
			break
		}
	}
	return p
}

// noEmptyPacks fails the test if the store holds a pack file with no
// value in it.
func noEmptyPacks(t *testing.T, store string) {
	t.Helper()
	packs, _ := filepath.Glob(filepath.Join(store, "db", "*.pack"))
	for _, p := range packs {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() <= int64(len("turnback pack 1\n")) {
			t.Errorf("pack %s holds nothing (%d bytes)", filepath.Base(p), fi.Size())
		}
	}
}

// TestFullDiskTmpfs: a store on a small tmpfs. A capture that outgrows
// the disk fails as a whole (no turn with files "not captured"), leaving
// no pack debris; on a full disk reading commands work, every other
// command exits 1 with the no-space message (never 2, never a signal) and
// the store stays byte-identical; once space is freed everything works,
// with no false conflicts.
func TestFullDiskTmpfs(t *testing.T) {
	testtier.Slow(t)
	t.Parallel()
	fsDir := mountTmpfs(t, 100)
	e := newStoreEnv(t)
	e.store = filepath.Join(fsDir, "store")
	for i := range 10 {
		e.writeBytes(fmt.Sprintf("f%d.bin", i), noise(uint64(i), 100<<10))
	}
	e.ok("snap", "-m", "one")
	e.writeBytes("f0.bin", noise(100, 100<<10))
	e.ok("end")
	e.ok("snap", "-m", "two")
	for i := range 5 {
		e.writeBytes(fmt.Sprintf("big%d.bin", i), noise(uint64(200+i), 9<<20))
	}
	r := e.run("end")
	wantRefused(t, r, "no space left on tmpfs at "+fsDir+" (store "+e.store+"): free ")
	noEmptyPacks(t, e.store)
	turns := e.turns()
	if len(turns) != 2 || !turns[0].Open {
		t.Fatalf("after the failed end, turns %+v; want turn 2 still open", turns)
	}
	// Status still answers: it falls back to comparing in memory.
	if r := e.ok("status"); !strings.Contains(r.stdout, "A big0.bin") {
		t.Errorf("status with the disk filling:\n%v", r)
	}

	filler := fillDisk(t, fsDir)
	before := dirState(t, e.store)
	work := dirState(t, e.dir)
	id := turns[1].After[:12]
	for _, args := range [][]string{{"status"}, {"log"}, {"show", id}, {"diff"}, {"info"}, {"verify"}} {
		if r := e.run(args...); r.code != 0 {
			t.Errorf("on a full disk: %v", r)
		}
	}
	for _, args := range [][]string{{"snap"}, {"end"}, {"undo"}, {"redo"}, {"gc"}, {"restore", id}} {
		wantRefused(t, e.run(args...), "no space left on tmpfs at "+fsDir)
	}
	if got := dirState(t, e.store); got != before {
		t.Errorf("the store changed on a full disk:\nbefore:\n%s\nafter:\n%s", before, got)
	}
	if got := dirState(t, e.dir); got != work {
		t.Errorf("the work tree changed")
	}
	noEmptyPacks(t, e.store)

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if err := os.Remove(filepath.Join(e.dir, fmt.Sprintf("big%d.bin", i))); err != nil {
			t.Fatal(err)
		}
	}
	e.ok("end")
	r = e.ok("undo")
	if strings.Contains(r.stdout+r.stderr, "conflict") {
		t.Errorf("undo after the disk was freed reports conflicts:\n%v", r)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "big4.bin")); !os.IsNotExist(err) {
		t.Errorf("undo left big4.bin: %v", err)
	}
	e.ok("undo")
	if got := e.read("f0.bin"); string(got) != string(noise(0, 100<<10)) {
		t.Error("f0.bin is not back to its first version")
	}
	e.ok("redo", "2")
	e.verify()
	noEmptyPacks(t, e.store)
}

// TestFullDiskMemtableTmpfs: the case that crashed every command with
// SIGBUS (exit 2) before the reserve: 1.5 MB left on the store's disk and
// a capture of 24,000 small files, whose records fill Badger's mmapped
// memtable. Now end exits 1 with the no-space message, reading commands
// work, and after freeing space end and undo work.
func TestFullDiskMemtableTmpfs(t *testing.T) {
	testtier.Slow(t)
	t.Parallel()
	fsDir := mountTmpfs(t, 100)
	e := newStoreEnv(t)
	e.store = filepath.Join(fsDir, "store")
	e.extra = append(e.extra, "TURNBACK_LARGE_DIR_FILES=0")
	e.writeBytes("a.txt", []byte("a\n"))
	e.ok("snap")
	filler := filepath.Join(fsDir, "filler")
	free := func() int64 {
		var st syscall.Statfs_t
		if err := syscall.Statfs(fsDir, &st); err != nil {
			t.Fatal(err)
		}
		return int64(st.Bavail) * st.Bsize
	}
	if err := os.WriteFile(filler, make([]byte, free()-1500<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	for j := range 8 {
		for i := range 3000 {
			e.writeBytes(fmt.Sprintf("e%d/g%d.txt", j, i), []byte(fmt.Sprintf("file %d %d %x\n", j, i, noise(uint64(j*3000+i), 6))))
		}
	}
	wantRefused(t, e.run("end"), "no space left on tmpfs at "+fsDir)
	for _, args := range [][]string{{"status"}, {"log"}, {"verify"}} {
		if r := e.run(args...); r.code != 0 {
			t.Errorf("on the full disk: %v", r)
		}
	}
	noEmptyPacks(t, e.store)
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	e.ok("end")
	e.ok("undo")
	if _, err := os.Stat(filepath.Join(e.dir, "e0")); !os.IsNotExist(err) {
		t.Errorf("undo left e0: %v", err)
	}
	e.verify()
}
