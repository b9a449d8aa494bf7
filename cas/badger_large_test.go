package cas

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
)

// oldValueLogStore writes recs into a new database in dir as turnback
// did before records of 1 MiB or more went to packs: into a value log of
// 64 MiB files.
func oldValueLogStore(t *testing.T, dir string, recs map[string][]byte) {
	t.Helper()
	db, err := badger.Open(badgerOptions(dir).WithValueLogFileSize(64 << 20))
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(txn *badger.Txn) error {
		for k, v := range recs {
			if err := txn.Set([]byte(k), v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// vlogSizes returns the size of every value log file in dir.
func vlogSizes(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".vlog") {
			fi, err := e.Info()
			if err != nil {
				t.Fatal(err)
			}
			out[e.Name()] = fi.Size()
		}
	}
	return out
}

// A write-mode open creates a value log file of twice Badger's file
// size; its first write faults in a readahead window as large as the
// file, up to the disk's read_ahead_kb.
func TestValueLogFileSmall(t *testing.T) {
	dir := t.TempDir()
	b := openTestBadger(t, dir)
	defer b.Close()
	sizes := vlogSizes(t, dir)
	if len(sizes) == 0 {
		t.Fatal("no value log file while open for writing")
	}
	for name, n := range sizes {
		if n > 2<<20 {
			t.Errorf("%s: %d bytes while open, want at most 2 MiB", name, n)
		}
	}
}

// Records Badger would keep in its value log go to packs, whichever way
// they are written (Set, Update, a deferred store's log folded at the
// next write-mode open), and read back whole; the value log stays empty
// (a header, 20 bytes, per file).
func TestLargeRecordsInPacks(t *testing.T) {
	big := func(seed uint64, n int) []byte { return randBytes(seed, n) }
	cases := []struct {
		name  string
		opts  BadgerOptions
		write func(ctx context.Context, b *Badger, key, val []byte) error
	}{
		{"set", BadgerOptions{}, func(ctx context.Context, b *Badger, key, val []byte) error {
			return b.Set(ctx, Entry{Key: key, Value: val})
		}},
		{"update", BadgerOptions{}, func(ctx context.Context, b *Badger, key, val []byte) error {
			return b.Update(ctx, []Entry{{Key: []byte("small"), Value: []byte("s")}, {Key: key, Value: val}}, nil)
		}},
		{"deferred", BadgerOptions{Deferred: true}, func(ctx context.Context, b *Badger, key, val []byte) error {
			return b.Set(ctx, Entry{Key: key, Value: val})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			dir := filepath.Join(t.TempDir(), "db")
			openTestBadger(t, dir).Close() // the database exists: a deferred open defers
			vals := map[string][]byte{
				"rec/a": big(1, valueThreshold),
				"rec/b": big(2, 3<<20+5),
			}
			b := mustOpen(t, dir, c.opts)
			for k, v := range vals {
				if err := c.write(ctx, b, []byte(k), v); err != nil {
					t.Fatalf("write %s: %v", k, err)
				}
			}
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
			// A write-mode open folds a deferred store's log.
			b = mustOpen(t, dir, BadgerOptions{})
			check := func(b *Badger) {
				t.Helper()
				for k, want := range vals {
					got, err := b.Get(ctx, []byte(k))
					if err != nil || !bytes.Equal(got, want) {
						t.Errorf("Get %s: %d bytes, err %v; want %d bytes", k, len(got), err, len(want))
					}
				}
				seen := 0
				err := b.Scan(ctx, []byte("rec/"), false, func(k, v []byte) error {
					seen++
					if !bytes.Equal(v, vals[string(k)]) {
						t.Errorf("Scan %s: %d bytes, want %d", k, len(v), len(vals[string(k)]))
					}
					return nil
				})
				if err != nil || seen != len(vals) {
					t.Errorf("Scan: %d records, err %v; want %d", seen, err, len(vals))
				}
			}
			check(b)
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
			for name, n := range vlogSizes(t, dir) {
				if n > vlogHeader {
					t.Errorf("%s: %d bytes, want only its %d-byte header", name, n, vlogHeader)
				}
			}
			r := mustOpen(t, dir, BadgerOptions{ReadOnly: true})
			defer r.Close()
			check(r)
		})
	}
}

// vlogHeader is the size of a value log file's header (Badger's
// vlogHeaderSize).
const vlogHeader = 20

// A store whose value log files were made at 64 MiB, holding a record,
// is read and written as before: Badger reads a file at its own size.
func TestValueLogOldStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	old := randBytes(7, 5<<20)
	oldValueLogStore(t, dir, map[string][]byte{"rec/old": old})
	if n := vlogSizes(t, dir)["000001.vlog"]; n <= vlogHeader {
		t.Fatalf("000001.vlog: %d bytes: the record is not in the value log", n)
	}
	for i := range 2 {
		b := mustOpen(t, dir, BadgerOptions{})
		got, err := b.Get(ctx, []byte("rec/old"))
		if err != nil || !bytes.Equal(got, old) {
			t.Fatalf("open %d: Get: %d bytes, err %v", i, len(got), err)
		}
		if err := b.Set(ctx, Entry{Key: []byte("rec/new"), Value: randBytes(8, 2<<20)}); err != nil {
			t.Fatalf("open %d: Set: %v", i, err)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// A repair rebuilds a large record of the overlay log (a log written
// before it was bounded at overlayMax) into a pack.
func TestRepairLargeRecord(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	b := openTestBadger(t, dir)
	if err := b.Set(ctx, Entry{Key: []byte("rec/small"), Value: []byte("s")}); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	big := randBytes(9, 3<<20)
	log := append(append([]byte(nil), overlayMagic...), bytes.Repeat([]byte{7}, overlayIDLen)...)
	log = append(log, encodeFrame([]overlayOp{{key: []byte("rec/big"), value: big}})...)
	if err := os.WriteFile(filepath.Join(dir, overlayName), log, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, manifestName)); err != nil {
		t.Fatal(err)
	}
	res, err := Repair(ctx, dir)
	if err != nil || res == nil {
		t.Fatalf("Repair: %+v, %v", res, err)
	}
	r := mustOpen(t, dir, BadgerOptions{})
	defer r.Close()
	for k, want := range map[string][]byte{"rec/small": []byte("s"), "rec/big": big} {
		got, err := r.Get(ctx, []byte(k))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("Get %s after the repair: %d bytes, err %v; want %d bytes", k, len(got), err, len(want))
		}
	}
}
