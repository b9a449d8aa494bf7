package cas

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

// reserveCases are the logs Reserve meets: none yet, and one with frames.
var reserveCases = []struct {
	name   string
	frames int
}{{"no log", 0}, {"a log", 3}}

// deferredWithFrames opens a deferred store whose log holds frames frames.
func deferredWithFrames(t *testing.T, frames int) (string, *Badger) {
	t.Helper()
	dir := emptyStore(t)
	b := mustOpen(t, dir, BadgerOptions{Deferred: true})
	for i := range frames {
		if err := b.Set(t.Context(), Entry{Key: fmt.Appendf(nil, "m/before%d", i), Value: []byte("v")}); err != nil {
			t.Fatal(err)
		}
		if err := b.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	return dir, b
}

// TestReserveCommitsOnFullDisk: once Reserve returned, a commit of the
// size reserved goes to the overlay log even when the disk has since
// become (nearly) full, without opening the database for writing; it
// is durable (a new open reads it).
func TestReserveCommitsOnFullDisk(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux allocates ahead")
	}
	for _, tc := range reserveCases {
		t.Run(tc.name, func(t *testing.T) {
			dir, b := deferredWithFrames(t, tc.frames)
			if err := b.Set(t.Context(), Entry{Key: []byte("m/pending"), Value: []byte("before the reserve")}); err != nil {
				t.Fatal(err)
			}
			want := make([]Entry, 40)
			n := int64(0)
			for i := range want {
				want[i] = Entry{Key: fmt.Appendf(nil, "m/commit%02d-%032d", i, i), Value: fmt.Appendf(nil, "value %d", i)}
				n += int64(len(want[i].Key) + len(want[i].Value))
			}
			if err := b.Reserve(n); err != nil {
				t.Fatal(err)
			}
			if !b.commitsLater() {
				skipIfNoPrealloc(t, dir)
				t.Fatal("Reserve opened the database for writing")
			}
			// The disk is now full for the store: every check fails.
			free, ok := freeSpace(dir)
			if !ok {
				t.Skip("free space unknown here")
			}
			oldBase, oldMax := b.space.reserve, reserveMax
			b.space.reserve, reserveMax = free+1<<30, free+1<<31
			defer func() { b.space.reserve, reserveMax = oldBase, oldMax }()
			if err := b.Update(t.Context(), want, nil); err != nil {
				t.Fatal(err)
			}
			if err := b.Sync(); err != nil {
				t.Fatalf("commit into the reserved blocks: %v", err)
			}
			if !b.commitsLater() {
				t.Error("the commit opened the database for writing")
			}
			b.space.reserve, reserveMax = oldBase, oldMax
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
			r := mustOpen(t, dir, BadgerOptions{ReadOnly: true})
			defer r.Close()
			mustGet(t, r, "m/pending", "before the reserve")
			for _, e := range want {
				mustGet(t, r, string(e.Key), string(e.Value))
			}
		})
	}
}

// skipIfNoPrealloc skips the test where the store's filesystem cannot
// allocate ahead (Reserve opens the database for writing there).
func skipIfNoPrealloc(t *testing.T, dir string) {
	t.Helper()
	f, err := os.CreateTemp(dir, "prealloc")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if err := preallocate(f, 0, 4096); errors.Is(err, errNoPrealloc) {
		t.Skipf("%s cannot allocate ahead", dir)
	}
}

// TestReserveUpgrades: a reservation the log cannot take (past the
// most a command defers, or past the log's bound) opens the database
// for writing at once, folding the log; so does a filesystem that
// cannot allocate ahead (here: an injected EOPNOTSUPP stands for it).
func TestReserveUpgrades(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    func() int64
		hook func(op, path string) error
	}{
		{"past deferMax", func() int64 { return deferMax + 1 }, nil},
		{"past the log's bound", func() int64 { return overlayMax/2 - 8 }, nil},
		{"no allocation ahead", func() int64 { return 100 }, func(op, _ string) error {
			if op == "overlayreserve" {
				return errNoPrealloc
			}
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, b := deferredWithFrames(t, 2)
			defer b.Close()
			if tc.hook != nil {
				defer SetFaults(tc.hook)()
			}
			if err := b.Reserve(tc.n()); err != nil {
				t.Fatal(err)
			}
			if b.commitsLater() {
				t.Fatal("still deferred")
			}
			if _, err := os.Stat(filepath.Join(dir, overlayName)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the log was not folded: %v", err)
			}
			mustGet(t, b, "m/before1", "v")
		})
	}
}

// TestReserveFailures: an error allocating ahead (the disk full, EIO)
// is Reserve's error, the store still deferred and its log as it was,
// before any work that must not fail half way began.
func TestReserveFailures(t *testing.T) {
	for _, errno := range []error{syscall.ENOSPC, syscall.EIO} {
		t.Run(errno.Error(), func(t *testing.T) {
			dir, b := deferredWithFrames(t, 2)
			defer b.Close()
			before, err := os.ReadFile(filepath.Join(dir, overlayName))
			if err != nil {
				t.Fatal(err)
			}
			defer SetFaults(func(op, _ string) error {
				if op == "overlayreserve" {
					return errno
				}
				return nil
			})()
			err = b.Reserve(100)
			if !errors.Is(err, errno) {
				t.Fatalf("Reserve: %v, want %v", err, errno)
			}
			if !b.commitsLater() {
				t.Error("no longer deferred")
			}
			after, _ := os.ReadFile(filepath.Join(dir, overlayName))
			if string(after) != string(before) {
				t.Error("the log changed")
			}
		})
	}
}

// TestReleaseGivesBlocksBack: the blocks a reservation allocated past
// the log's end, and no commit used, are given back by Release (a store's
// size on disk counts them).
func TestReleaseGivesBlocksBack(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux allocates ahead")
	}
	dir, b := deferredWithFrames(t, 2)
	defer b.Close()
	if err := b.Reserve(200 << 10); err != nil {
		t.Fatal(err)
	}
	if !b.commitsLater() {
		skipIfNoPrealloc(t, dir)
		t.Fatal("Reserve opened the database for writing")
	}
	log := filepath.Join(dir, overlayName)
	if got := allocatedOf(t, log); got < 400<<10 {
		t.Fatalf("after Reserve the log has %d bytes allocated, want the room", got)
	}
	if err := b.Set(t.Context(), Entry{Key: []byte("m/commit"), Value: []byte("c")}); err != nil {
		t.Fatal(err)
	}
	b.Release()
	fi, err := os.Stat(log)
	if err != nil {
		t.Fatal(err)
	}
	if got := allocatedOf(t, log); got > fi.Size()+8<<10 {
		t.Errorf("after Release the log of %d bytes has %d allocated", fi.Size(), got)
	}
}

// allocatedOf is the disk space file p takes.
func allocatedOf(t *testing.T, p string) int64 {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return allocated(fi)
}
