//go:build unix

package ref

import (
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnback/turnback/manifest/treetest"
)

// within runs fn and fails the test if it has not returned after a few
// seconds; the FIFOs are then opened for writing so that a reader
// blocked in open(2) or read(2) is released and the test ends.
func within(t *testing.T, fifos []string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
		return
	case <-time.After(5 * time.Second):
	}
	for _, p := range fifos {
		if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	}
	<-done
	t.Fatalf("blocked on a FIFO (%v)", fifos)
}

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// writeIdx writes a version 2 pack index naming oid at pack offset 12.
func writeIdx(t *testing.T, p string, oid [20]byte) {
	t.Helper()
	b := []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}
	for i := 0; i < 256; i++ {
		n := uint32(0)
		if i >= int(oid[0]) {
			n = 1
		}
		b = binary.BigEndian.AppendUint32(b, n)
	}
	b = append(b, oid[:]...)
	b = binary.BigEndian.AppendUint32(b, 0)  // crc
	b = binary.BigEndian.AppendUint32(b, 12) // offset
	b = append(b, make([]byte, 40)...)       // trailer
	treetest.PutPath(t, p, string(b))
}

// TestFIFOsDoNotBlock: a hostile or damaged repository with a FIFO where
// cas/ref reads a file (pack index, pack, loose object, LFS object,
// commondir, config, alternates) makes the lookup fail or find nothing,
// never block: capture ran inside Finder.Find, and a blocked open(2)
// ignores SIGTERM while holding the store.
func TestFIFOsDoNotBlock(t *testing.T) {
	content := []byte("big content")
	rec := &Record{Size: int64(len(content)), SHA256: sha256.Sum256(content), GitOID: [20]byte{0x5a, 1, 2}}
	loose := "objects/5a/0102" + "0000000000000000000000000000000000"
	for _, c := range []struct {
		name  string
		fifo  string // relative to .git
		setup func(t *testing.T, git string)
		open  bool // exercise Open (restore) rather than Find (capture)
		kind  Kind
	}{
		{name: "pack index", fifo: "objects/pack/pack-1.idx"},
		{name: "commondir", fifo: "commondir"},
		{name: "config", fifo: "config"},
		{name: "alternates", fifo: "objects/info/alternates"},
		{name: "loose object", fifo: loose, open: true, kind: Git},
		{name: "pack", fifo: "objects/pack/pack-1.pack", open: true, kind: Git, setup: func(t *testing.T, git string) {
			writeIdx(t, filepath.Join(git, "objects/pack/pack-1.idx"), rec.GitOID)
		}},
		{name: "LFS object", fifo: "lfs/objects/" + LFSPath("", rec.SHA256), open: true, kind: LFS},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := t.TempDir()
			git := filepath.Join(d, "w", ".git")
			if c.setup != nil {
				c.setup(t, git)
			}
			fifo := filepath.Join(git, c.fifo)
			mkfifo(t, fifo)
			within(t, []string{fifo}, func() {
				if !c.open {
					refs, err := NewFinder().Find(filepath.Join(d, "w"), rec)
					if len(refs) != 0 {
						t.Errorf("Find: %v %v, want nothing", refs, err)
					}
					return
				}
				dir := filepath.Join(git, "objects")
				if c.kind == LFS {
					dir = filepath.Join(git, "lfs", "objects")
				}
				if err := NewFinder().Check(Ref{Kind: c.kind, Dir: dir}, rec, ""); err == nil && c.kind == LFS {
					t.Errorf("Check accepted a FIFO")
				}
				rc, err := Open(Ref{Kind: c.kind, Dir: dir}, rec, "")
				if err == nil {
					rc.Close()
					t.Errorf("Open of a FIFO succeeded")
				}
			})
		})
	}
}

// packObject encodes a pack object header (type, size) followed by body.
func packObject(typ int, size int, body []byte) []byte {
	c := byte(typ<<4) | byte(size&15)
	size >>= 4
	var b []byte
	for size > 0 {
		b = append(b, c|0x80)
		c = byte(size & 0x7f)
		size >>= 7
	}
	return append(append(b, c), body...)
}

func zlibBytes(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestRefDeltaCycle: a REF_DELTA object whose base is itself, and one
// whose header promises 2 GiB: Open fails promptly, without a panic, with
// an error of bounded length.
func TestRefDeltaCycle(t *testing.T) {
	oid := [20]byte{0x42, 9}
	delta := zlibBytes(t, []byte{3, 3, 3, 'a', 'b', 'c'})
	for name, obj := range map[string][]byte{
		"self base":  packObject(objRefDelta, 6, append(oid[:], delta...)),
		"huge size":  packObject(objBlob, 2<<30-1, zlibBytes(t, []byte("short"))),
		"huge delta": packObject(objRefDelta, 2<<30-1, append(oid[:], delta...)),
	} {
		t.Run(name, func(t *testing.T) {
			d := t.TempDir()
			pack := append([]byte("PACK\x00\x00\x00\x02\x00\x00\x00\x01"), obj...)
			treetest.PutPath(t, filepath.Join(d, "pack", "p.pack"), string(pack))
			writeIdx(t, filepath.Join(d, "pack", "p.idx"), oid)
			within(t, nil, func() {
				rc, _, err := OpenODB(d).Open(oid)
				if err == nil {
					_, err = io.Copy(io.Discard, io.LimitReader(rc, 1<<20))
					rc.Close()
				}
				if err == nil && name != "huge size" {
					t.Errorf("Open succeeded")
				}
				// Wrapped once, not at every level of the chain (that
				// made a 60-byte pack cost 330 MB and a 170 KB message).
				if err != nil && len(err.Error()) > 1024 {
					t.Errorf("error of %d bytes: %.200s...", len(err.Error()), err)
				}
			})
		})
	}
}

// TestDamagedPack: a real pack with OFS deltas and its index, each
// damaged at random (bytes flipped, or cut short), never makes Has or
// Open panic or hang; what Open returns is bounded by the size it
// reports (callers verify the bytes by hash).
func TestDamagedPack(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	d := t.TempDir()
	gitRun(t, d, "init", "-q")
	rng := rand.New(rand.NewPCG(1, 2))
	v := make([]byte, 40<<10)
	for i := range v {
		v[i] = byte(rng.IntN(256))
	}
	var oids [][20]byte
	for i := 0; i < 3; i++ {
		v = append([]byte(nil), v...)
		copy(v[i*500:], fmt.Sprintf("edit %d", i))
		oids = append(oids, gitOID(v))
		treetest.PutPath(t, filepath.Join(d, "f"), string(v))
		gitRun(t, d, "add", "f")
		gitRun(t, d, "commit", "-q", "-m", fmt.Sprint(i))
	}
	gitRun(t, d, "repack", "-adq", "--depth=10", "--window=10")
	idxs, _ := filepath.Glob(filepath.Join(d, ".git/objects/pack/*.idx"))
	if len(idxs) != 1 {
		t.Fatalf("packs: %q", idxs)
	}
	idx := must(os.ReadFile(idxs[0]))
	pack := must(os.ReadFile(strings.TrimSuffix(idxs[0], ".idx") + ".pack"))
	for i := 0; i < 300; i++ {
		o := t.TempDir()
		ci, cp := append([]byte(nil), idx...), append([]byte(nil), pack...)
		target := &cp
		if i%3 == 0 {
			target = &ci
		}
		if i%5 == 0 {
			*target = (*target)[:rng.IntN(len(*target))]
		} else {
			for j := 0; j < 1+rng.IntN(8); j++ {
				(*target)[rng.IntN(len(*target))] ^= byte(1 + rng.IntN(255))
			}
		}
		treetest.PutPath(t, filepath.Join(o, "pack", "p.idx"), string(ci))
		treetest.PutPath(t, filepath.Join(o, "pack", "p.pack"), string(cp))
		within(t, nil, func() {
			odb := OpenODB(o)
			for _, oid := range oids {
				_, _ = odb.Has(oid)
				rc, size, err := odb.Open(oid)
				if err != nil {
					continue
				}
				n, _ := io.Copy(io.Discard, io.LimitReader(rc, size+1))
				rc.Close()
				if n > size {
					t.Errorf("iteration %d: Open gave more than the %d bytes it reported", i, size)
				}
			}
		})
	}
}

// TestExclude: places inside the excluded work tree protect nothing,
// except under a .git directory; symlinks into it are seen through.
func TestExclude(t *testing.T) {
	d := t.TempDir()
	wt := filepath.Join(d, "w")
	for _, p := range []string{"w/.git/lfs/objects", "w/lfsstore/objects", "w/.bare/objects", "outside/objects"} {
		if err := os.MkdirAll(filepath.Join(d, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(wt, "lfsstore"), filepath.Join(d, "link")); err != nil {
		t.Fatal(err)
	}
	f := NewFinder()
	f.Exclude(wt)
	for _, c := range []struct {
		place string
		want  bool
	}{
		{"w/.git/lfs/objects", false},
		{"w/.git/modules/sub/objects", false},
		{"w/lfsstore/objects", true},
		{"w/.bare/objects", true},
		{"w", true},
		{"outside/objects", false},
		{"wx/objects", false},
		{"link/objects", true},
	} {
		if got := f.excluded(filepath.Join(d, c.place)); got != c.want {
			t.Errorf("excluded(%s) = %v, want %v", c.place, got, c.want)
		}
	}
	if NewFinder().excluded(filepath.Join(wt, "lfsstore")) {
		t.Error("a Finder without Exclude excluded a place")
	}
}

// TestCheckLFSSymlinkIntoWorkTree: an LFS object that is a symlink to a
// file of the work tree is that file, not a second copy: Check refuses it
// once the work tree is excluded (an undo deleting the file would
// otherwise find its only "reference" gone with it).
func TestCheckLFSSymlinkIntoWorkTree(t *testing.T) {
	d := t.TempDir()
	wt := filepath.Join(d, "w")
	content := "the large file's content"
	treetest.PutPath(t, filepath.Join(wt, "N.bin"), content)
	rec := &Record{Size: int64(len(content)), SHA256: sha256.Sum256([]byte(content))}
	dir := filepath.Join(wt, ".git", "lfs", "objects")
	obj := LFSPath(dir, rec.SHA256)
	if err := os.MkdirAll(filepath.Dir(obj), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(wt, "N.bin"), obj); err != nil {
		t.Fatal(err)
	}
	if err := NewFinder().Check(Ref{Kind: LFS, Dir: dir}, rec, ""); err != nil {
		t.Fatalf("without Exclude: %v", err)
	}
	f := NewFinder()
	f.Exclude(wt)
	if err := f.Check(Ref{Kind: LFS, Dir: dir}, rec, ""); err == nil {
		t.Fatal("an LFS object linking into the work tree counted as a reference")
	}
	if refs, _ := f.Find(wt, rec); len(refs) != 0 {
		t.Fatalf("Find: %v", refs)
	}
}

// TestCheckLFSHardLink: an LFS object hard-linked to another name (a
// work tree file edited in place changes both) is no reference.
func TestCheckLFSHardLink(t *testing.T) {
	d := t.TempDir()
	content := "the large file's content"
	rec := &Record{Size: int64(len(content)), SHA256: sha256.Sum256([]byte(content))}
	dir := filepath.Join(d, ".git", "lfs", "objects")
	obj := LFSPath(dir, rec.SHA256)
	treetest.PutPath(t, obj, content)
	if err := NewFinder().Check(Ref{Kind: LFS, Dir: dir}, rec, ""); err != nil {
		t.Fatalf("a plain LFS object: %v", err)
	}
	if err := os.Link(obj, filepath.Join(d, "N.bin")); err != nil {
		t.Skipf("hard links: %v", err)
	}
	if err := NewFinder().Check(Ref{Kind: LFS, Dir: dir}, rec, ""); err == nil {
		t.Fatal("a hard-linked LFS object counted as a reference")
	}
}
