package cas

// The second review's attacks on the deferred store's pack pointers (each
// failed before its fix).

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// deferredOverEmpty returns a deferred store over an existing, empty
// database.
func deferredOverEmpty(t *testing.T) (*Badger, string) {
	t.Helper()
	dir := emptyStore(t)
	d := mustOpen(t, dir, BadgerOptions{Deferred: true})
	if d.def == nil {
		t.Fatal("not deferred")
	}
	return d, dir
}

func removeAllPacks(t *testing.T, dir string) {
	t.Helper()
	list, err := listPacks(dir)
	if err != nil || len(list) == 0 {
		t.Fatalf("packs: %v, %v", list, err)
	}
	for _, p := range list {
		if err := os.Remove(filepath.Join(dir, packName(p.id))); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDeferredKeysOnlyScanSkipsPacks: a keys-only Scan must not read
// values. Badger's own scan does not (a write-mode store's pointers are
// never unpacked for it), but the scratch's emit calls own(), which
// unpacks every pointer of the overlay layers: every keys-only scan of a
// deferred or read-only store (Sweep over b/, the fresh-store check,
// refs, marker) reads each pointed-to value back from its pack and
// fails when one pack is unreadable, where the write-mode store's
// keys-only scan does not.
func TestDeferredKeysOnlyScanSkipsPacks(t *testing.T) {
	ctx := t.Context()
	big := bytes.Repeat([]byte("v"), 5000)

	// Write mode: the keys-only scan never touches the pack.
	wdir := t.TempDir()
	w, err := OpenBadger(ctx, wdir, BadgerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wb := w.NewBatch()
	if err := wb.Put([]byte("b/1"), big); err != nil {
		t.Fatal(err)
	}
	if err := wb.Flush(); err != nil {
		t.Fatal(err)
	}
	removeAllPacks(t, wdir)
	n := 0
	if err := w.Scan(ctx, []byte("b/"), true, func(k, v []byte) error { n++; return nil }); err != nil || n != 1 {
		t.Fatalf("write mode: keys-only scan: %d keys, %v", n, err)
	}
	w.Close()

	// Deferred: the same keys-only scan, its pointer in the uncommitted
	// layer, then (after Sync) in the committed one.
	d, dir := deferredOverEmpty(t)
	defer d.Close()
	bt := d.NewBatch()
	if err := bt.Put([]byte("b/1"), big); err != nil {
		t.Fatal(err)
	}
	if err := bt.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := d.Sync(); err != nil {
		t.Fatal(err)
	}
	removeAllPacks(t, dir)
	n = 0
	err = d.Scan(ctx, []byte("b/"), true, func(k, v []byte) error { n++; return nil })
	if err != nil || n != 1 {
		t.Errorf("deferred: keys-only scan: %d keys, %v (it unpacked a pointer it was not asked for)", n, err)
	}
}

// TestDeferredFlushPointersOnClosedDB: a deferBatch holding
// pending pointers whose store opened Badger for writing (Reclaim's
// Upgrade) and whose database is then closed (Reclaim's close-and-reopen
// window, or b.dead after a reopen that failed) panics in Flush: the
// !ok path takes NewBatch's &badgerBatch{db: db} made for a closed
// database, whose wb is nil, and calls bb.wb.SetEntry. Every other path
// reports ErrClosed.
func TestDeferredFlushPointersOnClosedDB(t *testing.T) {
	d, _ := deferredOverEmpty(t)
	bt := d.NewBatch()
	if err := bt.Put([]byte("b/1"), bytes.Repeat([]byte("v"), 5000)); err != nil {
		t.Fatal(err)
	}
	if err := d.Upgrade(); err != nil {
		t.Fatal(err)
	}
	// What a Reclaim whose reopen failed leaves (see Reclaim: b.dead, b.db
	// the closed database).
	if err := d.db.Close(); err != nil {
		t.Fatal(err)
	}
	d.dead = true
	defer d.Close()
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		return bt.Flush()
	}()
	if !errors.Is(err, ErrClosed) {
		t.Errorf("Flush on a closed store: %v, want ErrClosed", err)
	}
}
