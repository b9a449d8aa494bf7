package cas

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
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
