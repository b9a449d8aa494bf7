package cas

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestBadgerReadOnly: a read-only open reads the database, keeps batch
// writes in memory (read back, merged in key order by Scan, gone after
// Close), refuses records with ErrReadOnly, and writes nothing to the
// directory; a directory without a database is ErrNoStore.
func TestBadgerReadOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b := openTestBadger(t, dir)
	vals := map[int][]byte{1: packValue(1, 5000), 3: []byte("small three")}
	batch := b.NewBatch()
	for i, v := range vals {
		if err := batch.Put([]byte(fmt.Sprintf("k/%d", i)), v); err != nil {
			t.Fatal(err)
		}
	}
	if err := batch.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	before := dirListing(t, dir)
	for round := range 2 {
		ro, err := OpenBadger(ctx, dir, BadgerOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if !ro.ReadOnly() {
			t.Fatal("not read-only")
		}
		for i, v := range vals {
			got, err := ro.Get(ctx, []byte(fmt.Sprintf("k/%d", i)))
			if err != nil || !bytes.Equal(got, v) {
				t.Fatalf("Get k/%d: %v", i, err)
			}
		}
		if _, err := ro.Get(ctx, []byte("k/2")); !errors.Is(err, ErrNotFound) {
			t.Fatalf("round %d: k/2 before the scratch write: %v", round, err)
		}
		wb := ro.NewBatch()
		if err := wb.Put([]byte("k/2"), packValue(2, 4000)); err != nil {
			t.Fatal(err)
		}
		if err := wb.Flush(); err != nil {
			t.Fatal(err)
		}
		if got, err := ro.Get(ctx, []byte("k/2")); err != nil || !bytes.Equal(got, packValue(2, 4000)) {
			t.Fatalf("scratch value: %v", err)
		}
		var keys []string
		err = ro.Scan(ctx, []byte("k/"), true, func(k, _ []byte) error { keys = append(keys, string(k)); return nil })
		if err != nil || fmt.Sprint(keys) != "[k/1 k/2 k/3]" {
			t.Fatalf("Scan: %v %v", keys, err)
		}
		if err := ro.Set(ctx, Entry{Key: []byte("m/x"), Value: []byte("y")}); !errors.Is(err, ErrReadOnly) {
			t.Fatalf("Set: %v, want ErrReadOnly", err)
		}
		if err := ro.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if got := dirListing(t, dir); got != before {
		t.Errorf("read-only opens changed the directory:\n%s\nwant:\n%s", got, before)
	}
	if _, err := OpenBadger(ctx, filepath.Join(dir, "absent"), BadgerOptions{ReadOnly: true}); !errors.Is(err, ErrNoStore) {
		t.Errorf("absent directory: %v, want ErrNoStore", err)
	}
}

// TestNoSpaceReserve: with less than the reserve free, a write open
// fails with a *NoSpaceError naming the store (errors.Is ErrNoSpace and
// ENOSPC) and creates nothing; a read-only open still works.
func TestNoSpaceReserve(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	b, err := OpenBadger(ctx, dir, BadgerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Set(ctx, Entry{Key: []byte("m/a"), Value: []byte("1")}); err != nil {
		t.Fatal(err)
	}
	b.Close()
	free, ok := freeSpace(dir)
	if !ok {
		t.Skip("free space unknown here")
	}
	oldBase, oldMax := reserveBase, reserveMax
	reserveBase, reserveMax = free+1<<30, free+1<<31
	defer func() { reserveBase, reserveMax = oldBase, oldMax }()
	before := dirListing(t, dir)
	_, err = OpenBadger(ctx, dir, BadgerOptions{Name: "the-store"})
	var ns *NoSpaceError
	if !errors.As(err, &ns) || !errors.Is(err, ErrNoSpace) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("write open: %v, want a NoSpaceError", err)
	}
	// Need is about 1 GiB; free space can change between the two
	// measurements (other processes on the disk), so allow 256 MiB of drift.
	if ns.Store != "the-store" || ns.Need < 3<<28 || ns.Need > 5<<28 || !strings.Contains(err.Error(), "no space left on ") {
		t.Errorf("error %q (%+v)", err, ns)
	}
	fresh := filepath.Join(t.TempDir(), "new", "db")
	if _, err := OpenBadger(ctx, fresh, BadgerOptions{}); !errors.Is(err, ErrNoSpace) {
		t.Errorf("new store: %v", err)
	}
	ro, err := OpenBadger(ctx, dir, BadgerOptions{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only open on a full disk: %v", err)
	}
	if v, err := ro.Get(ctx, []byte("m/a")); err != nil || string(v) != "1" {
		t.Errorf("read: %q %v", v, err)
	}
	ro.Close()
	if got := dirListing(t, dir); got != before {
		t.Errorf("the directory changed:\n%s\nwant:\n%s", got, before)
	}
}

// TestScratchBound: writes to a read-only store stop with ErrScratchFull
// past the memory bound instead of growing without end.
func TestScratchBound(t *testing.T) {
	old := maxScratch
	maxScratch = 64 << 10
	defer func() { maxScratch = old }()
	b, err := OpenBadgerEmpty()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	batch := b.NewBatch()
	var perr error
	for i := 0; i < 100 && perr == nil; i++ {
		perr = batch.Put([]byte(fmt.Sprintf("b/%d", i)), make([]byte, 4096))
	}
	if !errors.Is(perr, ErrScratchFull) {
		t.Fatalf("after 400 KiB into a 64 KiB scratch: %v", perr)
	}
	batch.Cancel()
}
