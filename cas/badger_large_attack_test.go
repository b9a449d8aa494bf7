package cas

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// packBytes returns the bytes of every pack file in dir, summed.
func packBytes(t *testing.T, dir string) int64 {
	t.Helper()
	list, err := listPacks(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := int64(0)
	for _, p := range list {
		n += p.size
	}
	return n
}

// A record around the threshold (1 MiB - 1, 1 MiB, 1 MiB + 1, 3 MiB),
// written, read back, replaced by a small one, deleted, and reclaimed
// between each step: a live record's pack is never dropped, and a dead
// one's space is given back.
func TestLargeRecordReclaim(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{valueThreshold - 1, valueThreshold, valueThreshold + 1, 3 << 20} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "db")
			b := mustOpen(t, dir, BadgerOptions{})
			defer func() { b.Close() }()
			reopen := func() {
				t.Helper()
				if err := b.Close(); err != nil {
					t.Fatal(err)
				}
				b = mustOpen(t, dir, BadgerOptions{})
			}
			want := func(key string, v []byte) {
				t.Helper()
				got, err := b.Get(ctx, []byte(key))
				if v == nil {
					if !errors.Is(err, ErrNotFound) {
						t.Fatalf("Get %s: %d bytes, err %v; want not found", key, len(got), err)
					}
					return
				}
				if err != nil || !bytes.Equal(got, v) {
					t.Fatalf("Get %s: %d bytes, err %v; want %d bytes", key, len(got), err, len(v))
				}
			}
			big, other := randBytes(uint64(n), n), randBytes(uint64(n)+1, n)
			// Two large records, then the first replaced by a small one.
			if err := b.Set(ctx, Entry{Key: []byte("rec/a"), Value: big}); err != nil {
				t.Fatal(err)
			}
			if err := b.Update(ctx, []Entry{{Key: []byte("rec/b"), Value: other}}, nil); err != nil {
				t.Fatal(err)
			}
			reopen()
			want("rec/a", big)
			want("rec/b", other)
			if err := b.Set(ctx, Entry{Key: []byte("rec/a"), Value: []byte("small")}); err != nil {
				t.Fatal(err)
			}
			if err := b.Reclaim(ctx); err != nil {
				t.Fatal(err)
			}
			want("rec/a", []byte("small"))
			want("rec/b", other) // moved to a new pack, or its pack kept
			reopen()
			want("rec/b", other)
			if err := b.Reclaim(ctx); err != nil {
				t.Fatal(err)
			}
			reopen()
			want("rec/a", []byte("small"))
			want("rec/b", other)
			if n >= valueThreshold {
				// A pack at least half live is kept (repack).
				if got := packBytes(t, dir); got > 2*int64(n)+1024 {
					t.Errorf("packs hold %d bytes after reclaim, want at most twice the live record's %d", got, n)
				}
			}
			// Deleted: reclaim gives its space back.
			if err := b.Delete(ctx, []byte("rec/b")); err != nil {
				t.Fatal(err)
			}
			if err := b.Reclaim(ctx); err != nil {
				t.Fatal(err)
			}
			reopen()
			want("rec/a", []byte("small"))
			want("rec/b", nil)
			if got := packBytes(t, dir); got > 1024 {
				t.Errorf("packs hold %d bytes with no live record in them", got)
			}
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
			for name, sz := range vlogSizes(t, dir) {
				if sz > vlogHeader {
					t.Errorf("%s: %d bytes, want only its header", name, sz)
				}
			}
			b = mustOpen(t, dir, BadgerOptions{ReadOnly: true})
			want("rec/a", []byte("small"))
		})
	}
}

// A large record whose pack is mostly dead blobs is copied when the pack
// is rewritten, and reads back whole after the switch.
func TestLargeRecordRepacked(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	b := mustOpen(t, dir, BadgerOptions{})
	defer func() { b.Close() }()
	rec := randBytes(11, 2<<20)
	w := b.NewBatch()
	for i := range 8 {
		if err := w.Put([]byte(fmt.Sprintf("blob/%d", i)), randBytes(uint64(100+i), 1<<20)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := b.Set(ctx, Entry{Key: []byte("rec/big"), Value: rec}); err != nil {
		t.Fatal(err)
	}
	before, err := listPacks(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		if err := b.Delete(ctx, []byte(fmt.Sprintf("blob/%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Reclaim(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := listPacks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(before) == len(after) && before[0].id == after[0].id {
		t.Fatalf("packs %v before and %v after: nothing was rewritten", before, after)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	b = mustOpen(t, dir, BadgerOptions{ReadOnly: true})
	got, err := b.Get(ctx, []byte("rec/big"))
	if err != nil || !bytes.Equal(got, rec) {
		t.Fatalf("Get after the repack: %d bytes, err %v; want %d bytes", len(got), err, len(rec))
	}
}

// An old store's value log (64 MiB files) holding two large records:
// one is replaced, and a reclaim's value log GC rewrites the other,
// still live, under the new 1 MiB file size. It reads back whole, and
// the store goes on being written and reclaimed.
func TestValueLogOldStoreReclaim(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	dead, live := randBytes(21, 6<<20), randBytes(22, 2<<20+3)
	oldValueLogStore(t, dir, map[string][]byte{"rec/dead": dead, "rec/live": live})
	b := mustOpen(t, dir, BadgerOptions{})
	defer func() { b.Close() }()
	if err := b.Set(ctx, Entry{Key: []byte("rec/dead"), Value: []byte("small")}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := b.Reclaim(ctx); err != nil {
			t.Fatalf("reclaim %d: %v", i, err)
		}
		for k, want := range map[string][]byte{"rec/dead": []byte("small"), "rec/live": live} {
			got, err := b.Get(ctx, []byte(k))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("reclaim %d: Get %s: %d bytes, err %v; want %d bytes", i, k, len(got), err, len(want))
			}
		}
		t.Logf("reclaim %d: value log files %v", i, vlogSizes(t, dir))
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		b = mustOpen(t, dir, BadgerOptions{})
		if err := b.Set(ctx, Entry{Key: []byte(fmt.Sprintf("rec/new%d", i)), Value: randBytes(uint64(30+i), 3<<20)}); err != nil {
			t.Fatalf("reclaim %d: Set: %v", i, err)
		}
	}
	got, err := b.Get(ctx, []byte("rec/live"))
	if err != nil || !bytes.Equal(got, live) {
		t.Fatalf("Get rec/live: %d bytes, err %v", len(got), err)
	}
}

// An old store's value log record reads back through every kind of
// open the new code makes: read-only, deferred (a read-only database
// until the first write) and write mode; a deferred open then writes.
func TestValueLogOldStoreOpens(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	old := randBytes(41, 5<<20)
	oldValueLogStore(t, dir, map[string][]byte{"rec/old": old})
	for _, o := range []BadgerOptions{{ReadOnly: true}, {Deferred: true}, {}} {
		b := mustOpen(t, dir, o)
		got, err := b.Get(ctx, []byte("rec/old"))
		if err != nil || !bytes.Equal(got, old) {
			t.Fatalf("%+v: Get: %d bytes, err %v", o, len(got), err)
		}
		n := 0
		if err := b.Scan(ctx, []byte("rec/old"), false, func(k, v []byte) error {
			if n++; !bytes.Equal(v, old) {
				t.Errorf("%+v: Scan %s: %d bytes", o, k, len(v))
			}
			return nil
		}); err != nil || n != 1 {
			t.Fatalf("%+v: Scan: %d records, err %v", o, n, err)
		}
		if o.Deferred {
			if err := b.Set(ctx, Entry{Key: []byte("rec/new"), Value: randBytes(42, 2<<20)}); err != nil {
				t.Fatalf("deferred Set: %v", err)
			}
			if got, err := b.Get(ctx, []byte("rec/old")); err != nil || !bytes.Equal(got, old) {
				t.Fatalf("deferred, after a write: Get: %d bytes, err %v", len(got), err)
			}
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// A store whose large records are in packs loses its MANIFEST: the
// repair finds their pointers in the tables, links the packs, and
// every record reads back whole; a reclaim after keeps them.
func TestRepairPackedRecords(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	b := mustOpen(t, dir, BadgerOptions{})
	vals := map[string][]byte{
		"rec/a": randBytes(51, valueThreshold),
		"rec/b": randBytes(52, 3<<20),
		"rec/c": randBytes(53, valueThreshold-1),
	}
	for k, v := range vals {
		if err := b.Set(ctx, Entry{Key: []byte(k), Value: v}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	// One more, by Update, in a second open.
	b = mustOpen(t, dir, BadgerOptions{})
	vals["rec/d"] = randBytes(54, 2<<20)
	if err := b.Update(ctx, []Entry{{Key: []byte("rec/d"), Value: vals["rec/d"]}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, manifestName)); err != nil {
		t.Fatal(err)
	}
	res, err := Repair(ctx, dir)
	if err != nil || res == nil {
		t.Fatalf("Repair: %+v, %v", res, err)
	}
	if res.Lost != 0 {
		t.Errorf("Repair lost %d records", res.Lost)
	}
	r := mustOpen(t, dir, BadgerOptions{})
	defer func() { r.Close() }()
	check := func(what string) {
		t.Helper()
		for k, want := range vals {
			got, err := r.Get(ctx, []byte(k))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s: Get %s: %d bytes, err %v; want %d bytes", what, k, len(got), err, len(want))
			}
		}
	}
	check("after the repair")
	if err := r.Reclaim(ctx); err != nil {
		t.Fatal(err)
	}
	check("after a reclaim")
}
