package cas

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
)

// emptyStore returns the directory of a new, empty database (the test is
// skipped where there are no deferred opens).
func emptyStore(t *testing.T) string {
	t.Helper()
	if !canLockDir {
		t.Skip("no deferred opens here")
	}
	dir := t.TempDir()
	mustOpen(t, dir, BadgerOptions{}).Close()
	return dir
}

// mustOpen opens the database in dir with o.
func mustOpen(t *testing.T, dir string, o BadgerOptions) *Badger {
	t.Helper()
	b, err := OpenBadger(t.Context(), dir, o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dbFiles lists the database directory's files other than the overlay
// log and the holder note, with their sizes.
func dbFiles(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, e := range ents {
		if e.Name() == overlayName || e.Name() == holderFile || e.Name() == holderDir || strings.HasSuffix(e.Name(), ".pack") {
			continue // ours, not Badger's
		}
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = fi.Size()
	}
	return out
}

func mustGet(t *testing.T, b *Badger, key, want string) {
	t.Helper()
	v, err := b.Get(t.Context(), []byte(key))
	if want == "" {
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: %q, %v; want absent", key, v, err)
		}
		return
	}
	if err != nil || string(v) != want {
		t.Errorf("%s: %q, %v; want %q", key, v, err, want)
	}
}

func scanKeys(t *testing.T, b *Badger, prefix string) []string {
	t.Helper()
	var keys []string
	if err := b.Scan(t.Context(), []byte(prefix), false, func(k, v []byte) error {
		keys = append(keys, string(k)+"="+string(v))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestDeferredCommitsToLog: a deferred store's small commits go to the
// overlay log and leave Badger's files exactly as they were; every kind
// of open reads them (deferred, read-only, write-mode), and a write-mode
// open folds them into Badger and removes the log.
func TestDeferredCommitsToLog(t *testing.T) {
	if !canLockDir {
		t.Skip("no deferred opens here")
	}
	ctx := t.Context()
	dir := t.TempDir()
	b := mustOpen(t, dir, BadgerOptions{})
	if err := b.Set(ctx, Entry{Key: []byte("p/old"), Value: []byte("1")}, Entry{Key: []byte("p/gone"), Value: []byte("2")}); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	before := dbFiles(t, dir)

	d := mustOpen(t, dir, BadgerOptions{Deferred: true})
	if d.def == nil || d.ReadOnly() {
		t.Fatalf("deferred open: def %v, read-only %v", d.def != nil, d.ReadOnly())
	}
	if err := d.Update(ctx, []Entry{{Key: []byte("p/new"), Value: []byte("3")}}, [][]byte{[]byte("p/gone")}); err != nil {
		t.Fatal(err)
	}
	w := d.NewBatch()
	big := bytes.Repeat([]byte("b"), 5000)
	if err := w.Put([]byte("p/big"), big); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	mustGet(t, d, "p/new", "3")
	mustGet(t, d, "p/gone", "")
	if err := d.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := d.Set(ctx, Entry{Key: []byte("p/old"), Value: []byte("1b")}); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil { // commits the last write
		t.Fatal(err)
	}
	if after := dbFiles(t, dir); !reflect.DeepEqual(after, before) {
		t.Errorf("Badger's files changed:\n%v\n%v", before, after)
	}
	if _, err := os.Stat(filepath.Join(dir, overlayName)); err != nil {
		t.Fatalf("no overlay log: %v", err)
	}
	want := []string{"p/big=" + string(big), "p/new=3", "p/old=1b"}
	for _, o := range []BadgerOptions{{ReadOnly: true}, {Deferred: true}, {}} {
		b, err := OpenBadger(ctx, dir, o)
		if err != nil {
			t.Fatal(err)
		}
		if got := scanKeys(t, b, "p/"); !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: scan %q, want %q", o, got, want)
		}
		mustGet(t, b, "p/gone", "")
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, overlayName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the write-mode open left the log: %v", err)
	}
	// Folding again what was folded (a crash before the log's removal)
	// changes nothing.
	b = mustOpen(t, dir, BadgerOptions{ReadOnly: true})
	if got := scanKeys(t, b, "p/"); !reflect.DeepEqual(got, want) {
		t.Errorf("after the fold: %q, want %q", got, want)
	}
	b.Close()
}

// TestDeferredRefold: a crash after a fold was synced but before the log
// was removed leaves the log; the next write-mode open folds it again
// to the same records.
func TestDeferredRefold(t *testing.T) {
	if !canLockDir {
		t.Skip("no deferred opens here")
	}
	ctx := t.Context()
	dir := t.TempDir()
	b := mustOpen(t, dir, BadgerOptions{})
	b.Set(ctx, Entry{Key: []byte("k"), Value: []byte("0")}, Entry{Key: []byte("d"), Value: []byte("x")})
	b.Close()
	d := mustOpen(t, dir, BadgerOptions{Deferred: true})
	d.Update(ctx, []Entry{{Key: []byte("k"), Value: []byte("1")}}, [][]byte{[]byte("d")})
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(filepath.Join(dir, overlayName))
	if err != nil {
		t.Fatal(err)
	}
	b = mustOpen(t, dir, BadgerOptions{})
	b.Close()
	if err := os.WriteFile(filepath.Join(dir, overlayName), saved, 0o600); err != nil {
		t.Fatal(err)
	}
	b = mustOpen(t, dir, BadgerOptions{})
	defer b.Close()
	mustGet(t, b, "k", "1")
	mustGet(t, b, "d", "")
}

// TestDeferredUpgrade: writes past deferMax open Badger for writing in
// the middle of a batch; what was written before and after is there,
// and the log (with an earlier command's frame) is folded and removed.
func TestDeferredUpgrade(t *testing.T) {
	if !canLockDir {
		t.Skip("no deferred opens here")
	}
	defer func(v int64) { deferMax = v }(deferMax)
	deferMax = 64 << 10
	ctx := t.Context()
	dir := emptyStore(t)
	d := mustOpen(t, dir, BadgerOptions{Deferred: true})
	d.Set(ctx, Entry{Key: []byte("first"), Value: []byte("frame")})
	d.Close()
	d = mustOpen(t, dir, BadgerOptions{Deferred: true})
	// A batch's large values go to packs, only their pointers to memory:
	// 160 KB of them leave the store deferred; records of the same size
	// do not.
	w := d.NewBatch()
	vals := map[string][]byte{}
	for i := range 40 {
		k := fmt.Sprintf("b/%03d", i)
		vals[k] = randBytes(uint64(i), 4000)
		if err := w.Put([]byte(k), vals[k]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if d.def == nil {
		t.Fatal("160 KB of blobs (40 pointers in memory) opened Badger for writing")
	}
	mustGet(t, d, "b/007", string(vals["b/007"]))
	for i := range 40 {
		k := fmt.Sprintf("r/%03d", i)
		vals[k] = randBytes(uint64(100+i), 4000)
		if err := d.Set(ctx, Entry{Key: []byte(k), Value: vals[k]}); err != nil {
			t.Fatal(err)
		}
	}
	if d.def != nil {
		t.Fatal("160 KB of records through a deferred store left it deferred")
	}
	if _, err := os.Stat(filepath.Join(dir, overlayName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the upgrade left the log: %v", err)
	}
	mustGet(t, d, "first", "frame")
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	b := mustOpen(t, dir, BadgerOptions{ReadOnly: true})
	defer b.Close()
	for k, v := range vals {
		mustGet(t, b, k, string(v))
	}
	mustGet(t, b, "first", "frame")
}

// TestDeferredLock: a deferred store holds the lock a write-mode open
// takes: another writer, deferred or not, and a reader are busy.
func TestDeferredLock(t *testing.T) {
	if !canLockDir {
		t.Skip("no deferred opens here")
	}
	ctx := t.Context()
	dir := emptyStore(t)
	d := mustOpen(t, dir, BadgerOptions{Deferred: true, Holder: "the deferred one"})
	for _, o := range []BadgerOptions{{}, {Deferred: true}, {ReadOnly: true}} {
		_, err := OpenBadger(ctx, dir, o)
		if !errors.Is(err, ErrBusy) {
			t.Errorf("%+v while a deferred store is open: %v, want ErrBusy", o, err)
		} else if !bytes.Contains([]byte(err.Error()), []byte("the deferred one")) {
			t.Errorf("busy error %q does not name the holder", err)
		}
	}
	d.Close()
	b, err := OpenBadger(ctx, dir, BadgerOptions{Deferred: true})
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	b.Close()
}

// TestDeferredFailedCommit: a commit whose append fails (EIO, ENOSPC, at
// the write or the sync) is an error, leaves no trace in the log, and
// its writes are gone from reads too; the next commit works.
func TestDeferredFailedCommit(t *testing.T) {
	if !canLockDir {
		t.Skip("no deferred opens here")
	}
	for _, op := range []string{"overlay", "overlaysync"} {
		t.Run(op, func(t *testing.T) {
			ctx := t.Context()
			dir := t.TempDir()
			b, err := OpenBadger(ctx, dir, BadgerOptions{})
			if err != nil {
				t.Fatal(err)
			}
			b.Close()
			d, err := OpenBadger(ctx, dir, BadgerOptions{Deferred: true})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			d.Set(ctx, Entry{Key: []byte("a"), Value: []byte("1")})
			if err := d.Sync(); err != nil {
				t.Fatal(err)
			}
			logBefore, _ := os.ReadFile(filepath.Join(dir, overlayName))
			remove := SetFaults(func(o, _ string) error {
				if o == op {
					return errors.New("injected EIO")
				}
				return nil
			})
			d.Set(ctx, Entry{Key: []byte("b"), Value: []byte("2")})
			err = d.Sync()
			remove()
			if err == nil {
				t.Fatal("commit succeeded through a failed append")
			}
			if got, _ := os.ReadFile(filepath.Join(dir, overlayName)); !bytes.Equal(got, logBefore) {
				t.Errorf("the failed frame stayed in the log")
			}
			mustGet(t, d, "b", "")
			mustGet(t, d, "a", "1")
			d.Set(ctx, Entry{Key: []byte("c"), Value: []byte("3")})
			if err := d.Sync(); err != nil {
				t.Fatalf("the next commit: %v", err)
			}
			mustGet(t, d, "c", "3")
		})
	}
}

// TestDeferredConcurrentUpgrade: writers on several goroutines cross
// deferMax while readers read what they wrote: the upgrade in the middle
// loses nothing and every read finds what was written (run with -race).
func TestDeferredConcurrentUpgrade(t *testing.T) {
	if !canLockDir {
		t.Skip("no deferred opens here")
	}
	defer func(v int64) { deferMax = v }(deferMax)
	deferMax = 64 << 10
	ctx := t.Context()
	dir := emptyStore(t)
	d := mustOpen(t, dir, BadgerOptions{Deferred: true})
	val := func(g, i int) []byte { return randBytes(uint64(g*1000+i), 100+(i%7)*700) }
	key := func(g, i int) []byte { return []byte(fmt.Sprintf("k/%d/%03d", g, i)) }
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			w := d.NewBatch()
			for i := range 60 {
				if err := w.Put(key(g, i), val(g, i)); err != nil {
					errs <- err
					return
				}
				if i%3 != 0 {
					continue
				}
				if err := d.Set(ctx, Entry{Key: key(g, 1000+i), Value: val(g, i)}); err != nil {
					errs <- err
					return
				}
				// A record is there once Set returns (a batch's values
				// once Flush has).
				for j := 0; j <= i; j += 3 {
					got, err := d.Get(ctx, key(g, 1000+j))
					if err != nil || !bytes.Equal(got, val(g, j)) {
						errs <- fmt.Errorf("read back %s: %v", key(g, 1000+j), err)
						return
					}
				}
			}
			errs <- w.Flush()
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if d.def != nil {
		t.Error("the store stayed deferred past deferMax")
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	r := mustOpen(t, dir, BadgerOptions{ReadOnly: true})
	defer r.Close()
	n := 0
	if err := r.Scan(ctx, []byte("k/"), true, func(k, _ []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 4*(60+20) {
		t.Errorf("%d keys after the upgrade, want %d", n, 4*80)
	}
	for g := range 4 {
		for i := range 60 {
			mustGet(t, r, string(key(g, i)), string(val(g, i)))
			if i%3 == 0 {
				mustGet(t, r, string(key(g, 1000+i)), string(val(g, i)))
			}
		}
	}
}

// TestDeferredCutsTornEnd: the torn end a crash left in the log (half a
// frame) is cut off by the next deferred writer, whose frame then
// follows the last committed one; readers before that ignore it.
func TestDeferredCutsTornEnd(t *testing.T) {
	if !canLockDir {
		t.Skip("no deferred opens here")
	}
	ctx := t.Context()
	dir := emptyStore(t)
	d := mustOpen(t, dir, BadgerOptions{Deferred: true})
	d.Set(ctx, Entry{Key: []byte("a"), Value: []byte("1")})
	d.Close()
	path := filepath.Join(dir, overlayName)
	whole, _ := os.ReadFile(path)
	torn := encodeFrame([]overlayOp{{key: []byte("b"), value: []byte("torn")}})
	if err := os.WriteFile(path, append(bytes.Clone(whole), torn[:len(torn)-2]...), 0o600); err != nil {
		t.Fatal(err)
	}
	r := mustOpen(t, dir, BadgerOptions{ReadOnly: true})
	mustGet(t, r, "a", "1")
	mustGet(t, r, "b", "")
	r.Close()
	d = mustOpen(t, dir, BadgerOptions{Deferred: true})
	d.Set(ctx, Entry{Key: []byte("c"), Value: []byte("3")})
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	got, n, err := parseAll(t, data)
	if err != nil || n != int64(len(data)) || len(got) != 2 {
		t.Fatalf("log after the next commit: %d frames, valid %d of %d, %v", len(got), n, len(data), err)
	}
	if !bytes.HasPrefix(data, whole) {
		t.Error("the committed frame changed")
	}
	r = mustOpen(t, dir, BadgerOptions{})
	defer r.Close()
	mustGet(t, r, "a", "1")
	mustGet(t, r, "b", "")
	mustGet(t, r, "c", "3")
}

// TestDeferredFoldPlacesValues: a fold puts what came through a batch
// where a batch would (a pack file, being large) and a record (Set)
// where Set would (the LSM tree), so that reading the stat cache's
// records back costs no read of a pack per record.
func TestDeferredFoldPlacesValues(t *testing.T) {
	if !canLockDir {
		t.Skip("no deferred opens here")
	}
	ctx := t.Context()
	dir := emptyStore(t)
	d := mustOpen(t, dir, BadgerOptions{Deferred: true})
	big := randBytes(9, 5000)
	d.Set(ctx, Entry{Key: []byte("record"), Value: big})
	w := d.NewBatch()
	w.Put([]byte("blob"), big)
	w.Flush()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := OpenBadger(ctx, dir, BadgerOptions{}) // folds
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for key, wantPacked := range map[string]bool{"record": false, "blob": true} {
		err := b.DB().View(func(txn *badger.Txn) error {
			item, err := txn.Get([]byte(key))
			if err != nil {
				return err
			}
			if got := item.UserMeta()&metaPacked != 0; got != wantPacked {
				t.Errorf("%s: in a pack %v, want %v", key, got, wantPacked)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		mustGet(t, b, key, string(big))
	}
}
