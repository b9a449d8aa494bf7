package cas

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// The review's attacks on the deferred store (each failed before its
// fix).

// TestDeferredUpgradeDirSyncFailKeepsLaterCommits: an upgrade whose removal
// of the log unlinks it but then fails to sync the directory once left
// the store deferred, appending to the unlinked log: later Syncs
// reported success and their records were gone after Close. The upgrade
// now completes (the log's id is recorded: a log that comes back is not
// folded again) and later writes go to the database.
func TestDeferredUpgradeDirSyncFailKeepsLaterCommits(t *testing.T) {
	ctx := t.Context()
	dir := emptyStore(t)
	d := mustOpen(t, dir, BadgerOptions{Deferred: true})
	mustCommit(t, d, "a", "1") // creates the log
	remove := SetFaults(func(op, path string) error {
		if op == "overlaysyncdir" && path == dir {
			return syscall.EIO
		}
		return nil
	})
	uerr := d.Upgrade()
	remove()
	t.Logf("Upgrade: %v", uerr)
	if _, err := os.Stat(filepath.Join(dir, overlayName)); !errors.Is(err, os.ErrNotExist) {
		t.Logf("log still there: %v", err)
	}
	if err := d.Set(ctx, Entry{Key: []byte("b"), Value: []byte("2")}); err != nil {
		t.Fatal(err)
	}
	if err := d.Sync(); err != nil {
		t.Logf("Sync after the failed upgrade: %v (fine: nothing claimed)", err)
		d.Close()
		return
	}
	if err := d.Close(); err != nil {
		t.Logf("Close: %v", err)
	}
	r := mustOpen(t, dir, BadgerOptions{ReadOnly: true})
	defer r.Close()
	mustGet(t, r, "a", "1")
	mustGet(t, r, "b", "2") // Sync returned nil: b is committed
}

// TestDeferredRefoldAfterUpgradeKeepsStepWhole: a crash after an
// upgrade's fold was synced but before the log was removed (simulated
// by putting the log back) leaves the log; the next write-mode open once
// folded it again over the uncommitted layer that the upgrade had folded
// too, and the step that upgrade committed came back half (its delete of
// k undone by the older frame, its write of j kept).
func TestDeferredRefoldAfterUpgradeKeepsStepWhole(t *testing.T) {
	ctx := t.Context()
	dir := emptyStore(t)
	d := mustOpen(t, dir, BadgerOptions{Deferred: true})
	mustCommit(t, d, "k", "v1") // frame 1: k=v1
	// The next step: delete k, write j (say, a journal removed and a
	// head moved), committed by an upgrade.
	if err := d.Update(ctx, []Entry{{Key: []byte("j"), Value: []byte("1")}}, [][]byte{[]byte("k")}); err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(filepath.Join(dir, overlayName))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Upgrade(); err != nil {
		t.Fatal(err)
	}
	// The crash: the fold is durable, the removal is not.
	if err := os.WriteFile(filepath.Join(dir, overlayName), saved, 0o600); err != nil {
		t.Fatal(err)
	}
	d.Close()
	b := mustOpen(t, dir, BadgerOptions{})
	defer b.Close()
	v, kerr := b.Get(ctx, []byte("k"))
	_, jerr := b.Get(ctx, []byte("j"))
	if (kerr == nil) != (jerr == nil) {
		return // the step is whole: there (k gone, j there) or not at all
	}
	t.Errorf("half a step after the refold: k=%q (%v), j present: %v", v, kerr, jerr == nil)
}

// TestDeferredDamagedFrameLengthIsDamage: damage to a frame's length
// field in the middle of the log (a length past the end of the file) was
// read as a torn end: the frames after it, committed, were dropped
// without ErrDamaged, and the next deferred open cut them off the file.
func TestDeferredDamagedFrameLengthIsDamage(t *testing.T) {
	ctx := t.Context()
	dir := emptyStore(t)
	d := mustOpen(t, dir, BadgerOptions{Deferred: true})
	for _, k := range []string{"a", "b", "c"} {
		mustCommit(t, d, k, k)
	}
	d.Close()
	path := filepath.Join(dir, overlayName)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// One bit flipped in the high byte of the first frame's length.
	off := overlayHeader
	n := binary.LittleEndian.Uint32(data[off:])
	binary.LittleEndian.PutUint32(data[off:], n|1<<24)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, perr := parseAll(t, data)
	if !errors.Is(perr, ErrDamaged) {
		t.Errorf("parse of a log damaged before two committed frames: %v, want ErrDamaged", perr)
	}
	d, err = OpenBadger(ctx, dir, BadgerOptions{Deferred: true})
	if err != nil {
		t.Logf("deferred open: %v", err)
		return
	}
	d.Close()
	after, _ := os.ReadFile(path)
	if !bytes.Equal(after, data) {
		t.Errorf("the deferred open cut %d committed bytes off the log (%d left)", len(data)-len(after), len(after))
	}
}

// TestDeferredWriteAfterClose: a deferred store's writes after Close
// succeeded (into memory, never committed) where a write-mode store's
// fail with ErrClosed.
func TestDeferredWriteAfterClose(t *testing.T) {
	ctx := t.Context()
	for _, o := range []BadgerOptions{{}, {Deferred: true}} {
		d := mustOpen(t, emptyStore(t), o)
		d.Close()
		err := d.Set(ctx, Entry{Key: []byte("x"), Value: []byte("1")})
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%+v: Set after Close: %v, want ErrClosed", o, err)
		}
		if _, err := d.Get(ctx, []byte("x")); !errors.Is(err, ErrClosed) {
			t.Errorf("%+v: Get after Close: %v, want ErrClosed", o, err)
		}
	}
}

// mustCommit sets key to val in d and syncs: one committed frame.
func mustCommit(t *testing.T, d *Badger, key, val string) {
	t.Helper()
	if err := d.Set(t.Context(), Entry{Key: []byte(key), Value: []byte(val)}); err != nil {
		t.Fatal(err)
	}
	if err := d.Sync(); err != nil {
		t.Fatal(err)
	}
}
