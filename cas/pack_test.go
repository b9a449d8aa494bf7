package cas

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// packValue returns a value of n incompressible bytes for key i.
func packValue(i, n int) []byte { return randBytes(uint64(7000+i), n) }

func packKey(i int) []byte { return fmt.Appendf(nil, "v/%06d", i) }

// putBatch writes values through one batch of b and flushes it.
func putBatch(t *testing.T, b *Badger, vals map[int][]byte) {
	t.Helper()
	batch := b.NewBatch()
	for i, v := range vals {
		if err := batch.Put(packKey(i), v); err != nil {
			t.Fatalf("Put %d: %v", i, err)
		}
	}
	if err := batch.Flush(); err != nil {
		t.Fatalf("Flush: %v", err)
	}
}

// checkValues checks every value through Get and Scan.
func checkValues(t *testing.T, b *Badger, vals map[int][]byte) {
	t.Helper()
	ctx := context.Background()
	for i, want := range vals {
		got, err := b.Get(ctx, packKey(i))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("Get %d: %d bytes (want %d), %v", i, len(got), len(want), err)
		}
	}
	seen := 0
	err := b.Scan(ctx, []byte("v/"), false, func(k, v []byte) error {
		var i int
		if _, err := fmt.Sscanf(string(k), "v/%d", &i); err != nil {
			return err
		}
		if want, ok := vals[i]; !ok || !bytes.Equal(v, want) {
			return fmt.Errorf("scan %s: %d bytes, want %d (present %v)", k, len(v), len(want), ok)
		}
		seen++
		return nil
	})
	if err != nil || seen != len(vals) {
		t.Fatalf("Scan saw %d of %d values: %v", seen, len(vals), err)
	}
}

// packedKeys counts the entries stored as pack pointers.
func packedKeys(t *testing.T, b *Badger) int {
	t.Helper()
	n := 0
	if err := b.scanPacked(context.Background(), func([]byte, packPtr, []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

func packFiles(t *testing.T, dir string) []packInfo {
	t.Helper()
	list, err := listPacks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func setPackTarget(t *testing.T, n int64) {
	old := packTarget
	packTarget = n
	t.Cleanup(func() { packTarget = old })
}

func TestPackRoundTrip(t *testing.T) {
	dir := t.TempDir()
	b := openTestBadger(t, dir)
	vals := map[int][]byte{}
	sizes := []int{1, packThreshold - 1, packThreshold, 5000, packDirectWrite - 1, packDirectWrite, 700 << 10, 2 << 20}
	for i, n := range sizes {
		vals[i] = packValue(i, n)
	}
	putBatch(t, b, vals)
	checkValues(t, b, vals)
	want := 0
	for _, n := range sizes {
		if n >= packThreshold {
			want++
		}
	}
	if got := packedKeys(t, b); got != want {
		t.Errorf("%d values stored in packs, want the %d of at least %d bytes", got, want, packThreshold)
	}
	// Set and Update keep values in Badger, and replace a packed value.
	ctx := context.Background()
	vals[2] = packValue(100, 3000)
	if err := b.Set(ctx, Entry{Key: packKey(2), Value: vals[2]}); err != nil {
		t.Fatal(err)
	}
	checkValues(t, b, vals)
	if got := packedKeys(t, b); got != want-1 {
		t.Errorf("%d packed values after Set replaced one, want %d", got, want-1)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	b = openTestBadger(t, dir)
	defer b.Close()
	checkValues(t, b, vals)
}

// TestPackOldStore: a store whose large values Badger itself holds (as
// every store written before pack files) reads as before, and takes new
// packed values beside them.
func TestPackOldStore(t *testing.T) {
	dir := t.TempDir()
	b := openTestBadger(t, dir)
	vals := map[int][]byte{}
	wb := b.DB().NewWriteBatch()
	for i := range 20 {
		vals[i] = packValue(i, 3000+i*20000)
		if err := wb.Set(packKey(i), vals[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := wb.Flush(); err != nil {
		t.Fatal(err)
	}
	checkValues(t, b, vals)
	more := map[int][]byte{}
	for i := 20; i < 30; i++ {
		more[i] = packValue(i, 5000)
		vals[i] = more[i]
	}
	putBatch(t, b, more)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	b = openTestBadger(t, dir)
	defer b.Close()
	checkValues(t, b, vals)
	if got := packedKeys(t, b); got != 10 {
		t.Errorf("%d packed values, want the 10 new ones", got)
	}
	if err := b.Reclaim(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkValues(t, b, vals)
}

// TestPackRotation: many concurrent Puts over small packs; pointers into
// sealed packs are handed to Badger before Flush, and all read back.
func TestPackRotation(t *testing.T) {
	setPackTarget(t, 64<<10)
	dir := t.TempDir()
	b := openTestBadger(t, dir)
	defer b.Close()
	batch := b.NewBatch()
	vals := make(map[int][]byte)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				i := g*1000 + j
				v := packValue(i, 1000+(i*7919)%20000)
				mu.Lock()
				vals[i] = v
				mu.Unlock()
				if err := batch.Put(packKey(i), v); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	bb := batch.(*badgerBatch)
	bb.mu.Lock()
	pending := len(bb.pending)
	bb.mu.Unlock()
	if pending >= len(vals)/2 {
		t.Errorf("%d of %d pointers still pending before Flush: sealed packs' pointers were not released", pending, len(vals))
	}
	if err := batch.Flush(); err != nil {
		t.Fatal(err)
	}
	checkValues(t, b, vals)
	if n := len(packFiles(t, dir)); n < 10 {
		t.Errorf("%d pack files for %d values in 64 KiB packs", n, len(vals))
	}
}

// TestPackReuse: a new process appends to the newest pack while it is
// small, after whatever a killed writer left at its end.
func TestPackReuse(t *testing.T) {
	dir := t.TempDir()
	b := openTestBadger(t, dir)
	first := map[int][]byte{1: packValue(1, 5000), 2: packValue(2, 300<<10)}
	putBatch(t, b, first)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	list := packFiles(t, dir)
	if len(list) != 1 {
		t.Fatalf("%d packs after one batch", len(list))
	}
	// A torn value at the end, as a killed process leaves it.
	f, err := os.OpenFile(filepath.Join(dir, packName(list[0].id)), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(packValue(99, 777)); err != nil {
		t.Fatal(err)
	}
	f.Close()

	b = openTestBadger(t, dir)
	defer b.Close()
	second := map[int][]byte{3: packValue(3, 7000)}
	putBatch(t, b, second)
	if n := len(packFiles(t, dir)); n != 1 {
		t.Errorf("%d packs after a second process wrote to a small one, want 1", n)
	}
	first[3] = second[3]
	checkValues(t, b, first)
}

// TestPackCancelAndReclaim: values of a cancelled batch are never
// referenced; Reclaim deletes dead packs, rewrites mostly dead ones, keeps
// the rest, and every live value reads back.
func TestPackCancelAndReclaim(t *testing.T) {
	setPackTarget(t, 1<<20)
	ctx := context.Background()
	dir := t.TempDir()
	b := openTestBadger(t, dir)
	defer b.Close()

	cancelled := b.NewBatch()
	if err := cancelled.Put(packKey(500), packValue(500, 200<<10)); err != nil {
		t.Fatal(err)
	}
	cancelled.Cancel()
	if _, err := b.Get(ctx, packKey(500)); !errors.Is(err, ErrNotFound) {
		t.Fatalf("value of a cancelled batch: %v, want ErrNotFound", err)
	}

	vals := map[int][]byte{}
	for i := range 60 {
		vals[i] = packValue(i, 100<<10) // 10 per 1 MiB pack
	}
	putBatch(t, b, vals)
	// Values 0-29 (the first packs) dead, 30-51 mostly dead, 52-59 live.
	var dead [][]byte
	for i := range 52 {
		if i < 30 || i%4 != 0 {
			dead = append(dead, packKey(i))
			delete(vals, i)
		}
	}
	if err := b.Delete(ctx, dead...); err != nil {
		t.Fatal(err)
	}
	before, err := DiskUsage(dir)
	if err != nil {
		t.Fatal(err)
	}
	packsBefore := packFiles(t, dir)
	if err := b.Reclaim(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := DiskUsage(dir)
	if err != nil {
		t.Fatal(err)
	}
	checkValues(t, b, vals)
	var packBytes int64
	for _, p := range packFiles(t, dir) {
		packBytes += p.size
	}
	live := int64(len(vals)) * 100 << 10
	t.Logf("du %d -> %d; packs %d -> %d, %d bytes for %d live", before, after, len(packsBefore), len(packFiles(t, dir)), packBytes, live)
	if packBytes > live*3/2+1<<20 {
		t.Errorf("packs hold %d bytes after Reclaim for %d live", packBytes, live)
	}
	if after >= before {
		t.Errorf("Reclaim gave nothing back: du %d -> %d", before, after)
	}
	// Again: nothing to do, nothing lost.
	if err := b.Reclaim(ctx); err != nil {
		t.Fatal(err)
	}
	checkValues(t, b, vals)
	// And the store takes new values after Reclaim.
	more := map[int][]byte{1000: packValue(1000, 50<<10)}
	putBatch(t, b, more)
	vals[1000] = more[1000]
	checkValues(t, b, vals)
}

// TestPackDamage: a damaged, truncated or missing pack makes reads fail
// with ErrCorrupt, never return wrong bytes.
func TestPackDamage(t *testing.T) {
	ctx := context.Background()
	for _, damage := range []string{"flip", "truncate", "remove"} {
		t.Run(damage, func(t *testing.T) {
			dir := t.TempDir()
			b := openTestBadger(t, dir)
			defer b.Close()
			putBatch(t, b, map[int][]byte{1: packValue(1, 10000)})
			name := filepath.Join(dir, packName(packFiles(t, dir)[0].id))
			b.packs.close() // drop open readers
			switch damage {
			case "flip":
				data, err := os.ReadFile(name)
				if err != nil {
					t.Fatal(err)
				}
				data[len(data)-100] ^= 1
				if err := os.WriteFile(name, data, 0o600); err != nil {
					t.Fatal(err)
				}
			case "truncate":
				if err := os.Truncate(name, 5000); err != nil {
					t.Fatal(err)
				}
			case "remove":
				if err := os.Remove(name); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := b.Get(ctx, packKey(1)); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Get after %s: %v, want ErrCorrupt", damage, err)
			}
			err := b.Scan(ctx, []byte("v/"), false, func(k, v []byte) error { return nil })
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("Scan after %s: %v, want ErrCorrupt", damage, err)
			}
		})
	}
}

// TestPackWriteFailure: when writing a pack fails, no pointer into it is
// ever committed (the batch fails), and later batches use a new pack.
func TestPackWriteFailure(t *testing.T) {
	for _, when := range []string{"put", "flush"} {
		t.Run(when, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			b := openTestBadger(t, dir)
			defer b.Close()
			batch := b.NewBatch()
			if err := batch.Put(packKey(1), packValue(1, 5000)); err != nil {
				t.Fatal(err)
			}
			// Break the file under the writer: every later write or sync fails.
			b.packs.mu.Lock()
			b.packs.cur.Close()
			b.packs.mu.Unlock()
			var err error
			if when == "put" {
				// Written directly, after the buffer: fails now.
				if err = batch.Put(packKey(2), packValue(2, 300<<10)); err != nil {
					batch.Cancel()
				}
			}
			if err == nil {
				err = batch.Flush()
			}
			if err == nil {
				t.Fatal("a batch whose pack could not be written succeeded")
			}
			for _, i := range []int{1, 2} {
				if _, err := b.Get(ctx, packKey(i)); !errors.Is(err, ErrNotFound) {
					t.Errorf("value %d of the failed batch: %v, want ErrNotFound", i, err)
				}
			}
			vals := map[int][]byte{3: packValue(3, 5000)}
			putBatch(t, b, vals)
			checkValues(t, b, vals)
			if got := packFiles(t, dir); len(got) != 1 || got[0].id != 2 {
				t.Errorf("packs %v, want only a new one (the broken one, never synced, is removed)", got)
			}
		})
	}
}

// TestPackPointerCodec: pointers round-trip and malformed ones are
// ErrCorrupt.
func TestPackPointerCodec(t *testing.T) {
	p := packPtr{pack: 12345, off: 1 << 33, size: 768 << 10, crc: 0xdeadbeef}
	got, err := decodePackPtr(p.encode())
	if err != nil || got != p {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	enc := p.encode()
	for _, bad := range [][]byte{nil, {packPointerTag}, enc[:len(enc)-1], append(bytes.Clone(enc), 0), append([]byte{0}, enc[1:]...)} {
		if _, err := decodePackPtr(bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("decode %x: %v, want ErrCorrupt", bad, err)
		}
	}
}

// TestPackReadCachedSize: a pack's size is looked at again only when a
// value lies past the size last seen. A value appended after the pack was
// first read is read all the same, and a pack truncated behind an open
// reader (its cached size now too large) still fails with ErrCorrupt,
// never with wrong bytes.
func TestPackReadCachedSize(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b := openTestBadger(t, dir)
	defer b.Close()
	putBatch(t, b, map[int][]byte{1: packValue(1, 10000)})
	if got, err := b.Get(ctx, packKey(1)); err != nil || !bytes.Equal(got, packValue(1, 10000)) {
		t.Fatalf("Get 1: %v", err)
	}
	putBatch(t, b, map[int][]byte{2: packValue(2, 20000)})
	if n := len(packFiles(t, dir)); n != 1 {
		t.Fatalf("%d packs, want the second value appended to the first pack", n)
	}
	if got, err := b.Get(ctx, packKey(2)); err != nil || !bytes.Equal(got, packValue(2, 20000)) {
		t.Fatalf("Get 2, appended after the pack was read: %v", err)
	}
	name := filepath.Join(dir, packName(packFiles(t, dir)[0].id))
	if err := os.Truncate(name, 15000); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(ctx, packKey(2)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Get 2 after the pack was truncated behind its reader: %v, want ErrCorrupt", err)
	}
}
