//go:build linux

package cli

// End-to-end tests of the metadata a restore brings back (issue 12):
// owners and special bits when root restores a user's files, hard
// links, sparse files and fifos, through the built binary.

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// metaSpec is a path of a test tree: content (nil: a directory), owner
// and mode.
type metaSpec struct {
	data     []byte
	uid, gid int
	mode     fs.FileMode
}

// metaOwner is who owns a path and its mode, as lstat says.
type metaOwner struct {
	uid, gid int
	mode     fs.FileMode
}

func metaStat(t *testing.T, p string) metaOwner {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return metaOwner{int(st.Uid), int(st.Gid), fi.Mode()}
}

func metaMust(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestE2EOwnersAsRoot: root undoes a turn that deleted a user's files (a
// setuid copy of a binary, a 0600 file, a setgid directory) and one that
// chowned a setuid file to root: everything comes back owned by the
// user with the same bits. A setuid file whose recorded owner does not
// exist on the system comes back with that owner but without setuid, and
// at no point does the folder hold a setuid or setgid file owned by
// anyone but its recorded owner.
func TestE2EOwnersAsRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	t.Parallel()
	const nobody, nogroup, ghost = 65534, 65534, 43210 // ghost: no passwd entry
	e := newUndoEnv(t)
	idBin, err := os.ReadFile("/usr/bin/id")
	if err != nil {
		idBin = bytes.Repeat([]byte("\x7fELF binary"), 1000)
	}
	files := map[string]metaSpec{
		"bin":         {nil, nobody, nogroup, fs.ModeDir | 0o755},
		"bin/myid":    {idBin, nobody, nogroup, fs.ModeSetuid | 0o755},
		"secret":      {[]byte("the user's secret\n"), nobody, nogroup, 0o600},
		"ghost":       {[]byte("owner gone\n"), ghost, ghost, fs.ModeSetuid | 0o755},
		"shared":      {nil, nobody, nogroup, fs.ModeDir | fs.ModeSetgid | 0o775},
		"shared/f":    {[]byte("f\n"), nobody, nogroup, 0o644},
		"chowned":     {[]byte("#!/bin/sh\n"), nobody, nogroup, fs.ModeSetuid | 0o750},
		"root-suid":   {[]byte("root's own\n"), 0, 0, fs.ModeSetuid | 0o755},
		"sticky":      {nil, nobody, nogroup, fs.ModeDir | fs.ModeSticky | 0o777},
		"sticky/note": {[]byte("n\n"), nobody, nogroup, 0o640},
	}
	var paths []string
	for p := range files {
		paths = append(paths, p)
	}
	// Parents first.
	for _, p := range []string{"bin", "shared", "sticky"} {
		metaMust(t, os.Mkdir(e.path(p), 0o755))
	}
	for _, p := range paths {
		if s := files[p]; s.data != nil {
			metaMust(t, os.WriteFile(e.path(p), s.data, 0o600))
		}
	}
	for _, p := range paths {
		s := files[p]
		metaMust(t, os.Lchown(e.path(p), s.uid, s.gid))
		metaMust(t, os.Chmod(e.path(p), s.mode)) // after chown, which clears setuid
	}
	want := func(what string) {
		t.Helper()
		for _, p := range paths {
			s := files[p]
			wantMode := s.mode
			if p == "ghost" {
				wantMode &^= fs.ModeSetuid
			}
			got := metaStat(t, e.path(p))
			if got.uid != s.uid || got.gid != s.gid || got.mode != wantMode {
				t.Errorf("%s: %s: %d:%d %v, want %d:%d %v", what, p, got.uid, got.gid, got.mode, s.uid, s.gid, wantMode)
			}
			if s.data != nil {
				if b, err := os.ReadFile(e.path(p)); err != nil || !bytes.Equal(b, s.data) {
					t.Errorf("%s: %s: content differs (%v)", what, p, err)
				}
			}
		}
		metaNoForeignSetuid(t, e.dir, files)
	}
	e.ok("snap", "-m", "the turn")
	for _, p := range []string{"bin", "secret", "ghost", "shared", "root-suid", "sticky"} {
		metaMust(t, os.RemoveAll(e.path(p)))
	}
	metaMust(t, os.Chown(e.path("chowned"), 0, 0)) // chown alone: setuid cleared
	e.ok("end")
	if st := metaStat(t, e.path("chowned")); st.uid != 0 || st.mode&fs.ModeSetuid != 0 {
		t.Fatalf("setup: chowned is %+v", st)
	}
	r := e.ok("undo")
	want("after undo")
	for _, line := range []string{"  A bin/myid\n", "  A secret\n", "  M chowned\n"} {
		if !strings.Contains(r.stdout, line) && !strings.Contains(r.stdout, strings.Replace(line, "  M", "  P", 1)) {
			t.Errorf("undo output lacks %q:\n%s", line, r.stdout)
		}
	}
	e.ok("redo")
	if _, err := os.Lstat(e.path("bin")); !os.IsNotExist(err) {
		t.Errorf("after redo: bin still there (%v)", err)
	}
	if st := metaStat(t, e.path("chowned")); st.uid != 0 {
		t.Errorf("after redo: chowned owned by %d", st.uid)
	}
	e.ok("undo")
	want("after the second undo")
}

// metaNoForeignSetuid fails if any setuid or setgid file below dir is
// owned by someone other than the owner files records for it.
func metaNoForeignSetuid(t *testing.T, dir string, files map[string]metaSpec) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		st := metaStat(t, p)
		if st.mode&(fs.ModeSetuid|fs.ModeSetgid) == 0 {
			return nil
		}
		s, ok := files[filepath.ToSlash(rel)]
		if !ok || s.uid != st.uid || s.gid != st.gid {
			t.Errorf("%s is %v owned by %d:%d, not by its recorded owner", rel, st.mode, st.uid, st.gid)
		}
		return nil
	})
}

// TestE2EHardLinks: files linked together (same directory and another
// one) come back as one inode after undo of a turn that deleted them and
// of a turn that rewrote their content through one name.
func TestE2EHardLinks(t *testing.T) {
	t.Parallel()
	e := newUndoEnv(t)
	e.write("a.txt", "shared content\n")
	e.write("solo.txt", "alone\n")
	metaMust(t, os.MkdirAll(e.path("sub"), 0o755))
	metaMust(t, os.Link(e.path("a.txt"), e.path("b.txt")))
	metaMust(t, os.Link(e.path("a.txt"), e.path("sub/c.txt")))
	group := []string{"a.txt", "b.txt", "sub/c.txt"}
	sameInode := func(what, content string) {
		t.Helper()
		first, err := os.Lstat(e.path(group[0]))
		metaMust(t, err)
		for _, p := range group {
			fi, err := os.Lstat(e.path(p))
			if err != nil {
				t.Fatalf("%s: %s: %v", what, p, err)
			}
			if !os.SameFile(first, fi) {
				t.Errorf("%s: %s is not a link of %s", what, p, group[0])
			}
			if b, _ := os.ReadFile(e.path(p)); string(b) != content {
				t.Errorf("%s: %s holds %q", what, p, b)
			}
		}
		if fi, _ := os.Lstat(e.path("solo.txt")); fi.Sys().(*syscall.Stat_t).Nlink != 1 {
			t.Errorf("%s: solo.txt has links", what)
		}
	}
	e.ok("snap")
	for _, p := range group {
		e.rm(p)
	}
	e.ok("end")
	e.ok("undo")
	sameInode("after undo of the deletion", "shared content\n")

	e.ok("snap")
	e.write("b.txt", "rewritten through b\n") // in place: all three change
	e.ok("end")
	sameInode("setup", "rewritten through b\n")
	e.ok("undo")
	sameInode("after undo of the rewrite", "shared content\n")
	e.ok("redo")
	sameInode("after redo", "rewritten through b\n")
}

// TestE2ESparse: a 32 MiB file holding 8 KiB of data, deleted by a
// turn, comes back with at most twice the disk blocks it had.
func TestE2ESparse(t *testing.T) {
	t.Parallel()
	e := newUndoEnv(t)
	e.extra = []string{"TURNBACK_SIZE_LIMIT=1G"}
	const size = 32 << 20 // many chunks, mostly holes
	p := e.path("disk.img")
	f, err := os.Create(p)
	metaMust(t, err)
	data := bytes.Repeat([]byte("DATA"), 1024) // 4 KiB
	for _, off := range []int64{0, 20 << 20} {
		_, err := f.WriteAt(data, off+4096)
		metaMust(t, err)
	}
	metaMust(t, f.Truncate(size))
	metaMust(t, f.Close())
	blocks := func() int64 {
		fi, err := os.Lstat(p)
		metaMust(t, err)
		return fi.Sys().(*syscall.Stat_t).Blocks
	}
	before := blocks()
	if before*512 > 1<<20 {
		t.Skipf("this file system does not keep holes (%d blocks)", before)
	}
	e.ok("snap")
	e.rm("disk.img")
	e.ok("end")
	e.ok("undo")
	after := blocks()
	t.Logf("disk blocks: %d before, %d after undo (512-byte units)", before, after)
	if after > 2*before {
		t.Errorf("restored file takes %d blocks, the original %d", after, before)
	}
	fi, err := os.Lstat(p)
	metaMust(t, err)
	if fi.Size() != size {
		t.Fatalf("size %d, want %d", fi.Size(), size)
	}
	g, err := os.Open(p)
	metaMust(t, err)
	defer g.Close()
	for _, off := range []int64{0, 20 << 20} {
		buf := make([]byte, 3*4096)
		_, err := g.ReadAt(buf, off)
		metaMust(t, err)
		want := append(append(make([]byte, 4096), data...), make([]byte, 4096)...)
		if !bytes.Equal(buf, want) {
			t.Errorf("content at %d differs", off)
		}
	}
}

// TestE2EFIFO: a fifo the turn replaced by a file comes back as a fifo
// with its mode (never opened: an undo that opened it would hang), and
// redo puts the file back.
func TestE2EFIFO(t *testing.T) {
	t.Parallel()
	e := newUndoEnv(t)
	e.write("keep.txt", "keep\n")
	metaMust(t, syscall.Mkfifo(e.path("pipe"), 0o640))
	metaMust(t, os.Chmod(e.path("pipe"), 0o640))
	metaMust(t, syscall.Mkfifo(e.path("gone"), 0o600))
	e.ok("snap")
	e.rm("pipe")
	e.write("pipe", "a regular file now\n")
	e.rm("gone")
	e.ok("end")
	d := e.jsonOK("undo")
	checkPathList(t, "undo restored", d.Restored, "pipe")
	checkPathList(t, "undo created", d.Created, "gone")
	for p, mode := range map[string]fs.FileMode{"pipe": 0o640, "gone": 0o600} {
		fi, err := os.Lstat(e.path(p))
		metaMust(t, err)
		if fi.Mode() != fs.ModeNamedPipe|mode {
			t.Errorf("%s after undo: %v, want a fifo %v", p, fi.Mode(), mode)
		}
	}
	e.ok("redo")
	if b, err := os.ReadFile(e.path("pipe")); err != nil || string(b) != "a regular file now\n" {
		t.Errorf("after redo: pipe %q, %v", b, err)
	}
	if _, err := os.Lstat(e.path("gone")); !os.IsNotExist(err) {
		t.Errorf("after redo: gone still there (%v)", err)
	}
}
