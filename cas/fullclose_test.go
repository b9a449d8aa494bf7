package cas

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCloseKeepsMemtable: the Close of a database whose memtable
// guardClose took out (the flush would not fit the disk) writes no
// table and keeps the records in the memtable's log, which the next
// open replays, read-only (through its write-mode repair) as well.
// It fails when Badger no longer has the fields guardClose uses.
func TestCloseKeepsMemtable(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "db")
	b, err := OpenBadger(ctx, dir, BadgerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := memtableBytes(b.db); !ok || n != 0 {
		t.Fatalf("memtable of a new database: %d bytes, ok %v", n, ok)
	}
	key, val := []byte("k"), []byte("kept in the log")
	if err := b.Set(ctx, Entry{Key: key, Value: val}); err != nil {
		t.Fatal(err)
	}
	if n, ok := memtableBytes(b.db); !ok || n == 0 {
		t.Fatalf("memtable after a write: %d bytes, ok %v", n, ok)
	}
	if err := b.db.Sync(); err != nil {
		t.Fatal(err)
	}
	if !dropMemtable(b.db) {
		t.Fatal("dropMemtable: Badger has no memtable field")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if !hasMemtables(dir) {
		t.Fatal("Close removed the memtable's log")
	}
	if ssts, _ := filepath.Glob(filepath.Join(dir, "*.sst")); len(ssts) != 0 {
		t.Fatalf("Close flushed the memtable: %v", ssts)
	}
	r, err := OpenBadger(ctx, dir, BadgerOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := r.Get(ctx, key)
	if err != nil || string(got) != string(val) {
		t.Fatalf("after reopening: %q, %v", got, err)
	}
	if hasMemtables(dir) {
		entries, _ := os.ReadDir(dir)
		t.Errorf("the repair left a memtable log: %v", entries)
	}
}
