//go:build unix

package ref

import (
	"crypto/sha256"
	"encoding/binary"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
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
	mkfile(t, p, string(b))
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
