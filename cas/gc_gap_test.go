package cas

// Reclaim closes the database and opens it again. Nothing another
// process writes may be lost in between.

import (
	"bytes"
	"errors"
	"os"
	"testing"
)

// gapWrite opens the store in dir as a command that waited would
// (deferred), puts a value big enough for a pack under key, and closes
// it, which commits the value to the overlay log.
func gapWrite(t *testing.T, dir, key string, val []byte) error {
	t.Helper()
	w, err := OpenBadger(t.Context(), dir, BadgerOptions{Deferred: true})
	if err != nil {
		return err
	}
	bt := w.NewBatch()
	if err := bt.Put([]byte(key), val); err != nil {
		t.Fatal(err)
	}
	if err := bt.Flush(); err != nil {
		t.Fatal(err)
	}
	return w.Close()
}

// TestReclaimHoldsTheStore: a store opened for writing at once, as gc
// opens it, keeps the store through Reclaim's close and reopen. Before,
// such a store held only Badger's lock, which the close gave up: a
// deferred writer took the store in that gap and committed a pack to
// the overlay log, and the reopened store deleted that pack.
func TestReclaimHoldsTheStore(t *testing.T) {
	dir := emptyStore(t)
	val := bytes.Repeat([]byte("gap"), 4000)
	b := mustOpen(t, dir, BadgerOptions{}) // gc's WriteNow: not deferred
	var gapErr error
	reclaimGap = func() { gapErr = gapWrite(t, dir, "b/gap", val) }
	defer func() { reclaimGap = nil }()
	if err := b.Reclaim(t.Context()); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if gapErr == nil {
		t.Error("another process took the store while Reclaim had it closed")
	} else if !errors.Is(gapErr, ErrBusy) {
		t.Errorf("the writer in the gap: %v, want ErrBusy", gapErr)
	}
	if gapErr == nil {
		r := mustOpen(t, dir, BadgerOptions{ReadOnly: true})
		defer r.Close()
		got, err := r.Get(t.Context(), []byte("b/gap"))
		if err != nil || !bytes.Equal(got, val) {
			t.Errorf("the value written in the gap: %d bytes, %v", len(got), err)
		}
	}
}

// TestReclaimFoldsTheLog: a reopen never works on a database that lacks
// what the overlay log holds. Were a log to gain a frame while Reclaim
// had the database closed, the reopen folds it before repacking, so the
// frame's pack stays.
func TestReclaimFoldsTheLog(t *testing.T) {
	dir := emptyStore(t)
	val := bytes.Repeat([]byte("log"), 4000)
	b := mustOpen(t, dir, BadgerOptions{})
	reclaimGap = func() {
		// A second handle on the directory stands in for the lock: this
		// process holds the real one.
		f, err := os.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		w, ok, err := openDeferred(dir, f, newSpaceGuard(dir, ""), "test", false)
		if err != nil || !ok {
			t.Fatalf("deferred open in the gap: %v, %v", ok, err)
		}
		bt := w.NewBatch()
		if err := bt.Put([]byte("b/log"), val); err != nil {
			t.Fatal(err)
		}
		if err := bt.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	defer func() { reclaimGap = nil }()
	if err := b.Reclaim(t.Context()); err != nil {
		t.Fatal(err)
	}
	got, err := b.Get(t.Context(), []byte("b/log"))
	if err != nil || !bytes.Equal(got, val) {
		t.Errorf("the log's value after Reclaim: %d bytes, %v", len(got), err)
	}
	if _, err := os.Lstat(dir + "/" + overlayName); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the overlay log is still there after the reopen folded it: %v", err)
	}
	b.Close()
}
