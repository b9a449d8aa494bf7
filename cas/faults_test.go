package cas

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/turnback/turnback/internal/testtier"
	"github.com/zeebo/blake3"
)

// setRaw writes a record as it is, bypassing every check (packed: mark
// it as a pack pointer).
func setRaw(b *Badger, key, val []byte, packed bool) error {
	return b.db.Update(func(txn *badger.Txn) error {
		e := badger.NewEntry(key, val)
		if packed {
			e = e.WithMeta(metaPacked)
		}
		return txn.SetEntry(e)
	})
}

// faultPlan fails the nth call (1-based) of one pack operation with err;
// n == 0 only counts.
type faultPlan struct {
	op  string
	n   int
	err error

	mu    sync.Mutex
	calls int
	hit   bool
}

func (f *faultPlan) hook(op, path string) error {
	if op != f.op {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.n != 0 && f.calls == f.n {
		f.hit = true
		return f.err
	}
	return nil
}

// faultWorkload writes values through a Store's Writer in two flushes,
// with small packs so that several are created, filled, rotated and
// synced. It returns the content it meant to store, by address.
func faultWorkload(ctx context.Context, s *Store) (map[Hash][]byte, error) {
	want := map[Hash][]byte{}
	for round := range 2 {
		w := s.NewWriter()
		for i := range 6 {
			data := randBytes(uint64(100*round+i), 1000+i*6000)
			h, err := w.PutBlob(ctx, data)
			if err != nil {
				w.Cancel()
				return want, err
			}
			want[h] = data
		}
		// And one chunked file.
		big := randBytes(uint64(900+round), SmallFileMax+200<<10)
		h, _, err := w.PutFile(ctx, bytes.NewReader(big), int64(len(big)))
		if err != nil {
			w.Cancel()
			return want, err
		}
		want[h] = big
		if err := w.Flush(); err != nil {
			w.Cancel()
			return want, err
		}
		w.Cancel()
	}
	return want, nil
}

// checkAfterFault: whatever the store holds reads back exactly (or is
// absent), no pack file is empty, and writing works again.
func checkAfterFault(t *testing.T, dir string, s *Store, want map[Hash][]byte) {
	t.Helper()
	ctx := context.Background()
	for h, data := range want {
		ok, err := s.HasContent(ctx, h)
		if err != nil {
			t.Fatalf("HasContent %s: %v", h.Short(), err)
		}
		if !ok {
			continue
		}
		r, err := s.Open(ctx, h)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				continue // a chunk list committed in an earlier flush round is fine; its chunks too
			}
			t.Fatalf("Open %s: %v", h.Short(), err)
		}
		got, err := io.ReadAll(r)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				continue
			}
			t.Fatalf("read %s: %v (a committed record names bytes that are not there)", h.Short(), err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("content %s: wrong bytes", h.Short())
		}
	}
	list, err := listPacks(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list {
		if p.size <= int64(len(packMagic)) {
			t.Errorf("pack %s left with %d bytes", packName(p.id), p.size)
		}
	}
}

// TestFaultInjectionPacks injects EIO, ENOSPC and short writes at every
// create, write and sync of the pack files (and of their directory) of a
// workload of blobs and chunked files: the workload fails with a clear
// error or succeeds, never panics, never leaves a record naming bytes
// that are not there (checked after the fault and again after reopening),
// never leaves an empty pack, and the store takes writes again at once.
// Under the race detector each operation and error tries its first and
// last call and a third of the others, drawn by a logged seed.
func TestFaultInjectionPacks(t *testing.T) {
	testtier.Slow(t)
	setPackTarget(t, 160<<10)
	ctx := context.Background()
	try := faultSample(t, testtier.UnderRace())
	// Count the calls of each operation in a clean run.
	counts := map[string]int{}
	for _, op := range []string{"create", "write", "sync", "syncdir"} {
		plan := &faultPlan{op: op}
		defer SetFaults(plan.hook)()
		dir := t.TempDir()
		s := newTestStore(t, openTestBadger(t, dir))
		if _, err := faultWorkload(ctx, s); err != nil {
			t.Fatal(err)
		}
		s.Close()
		counts[op] = plan.calls
	}
	t.Logf("pack operations of a clean run: %v", counts)
	kinds := map[string]error{"EIO": syscall.EIO, "ENOSPC": syscall.ENOSPC, "short": ErrInjectedShortWrite}
	runs := 0
	for op, n := range counts {
		if n == 0 {
			t.Fatalf("the workload never calls %s", op)
		}
		for kind, ferr := range kinds {
			if kind == "short" && op != "write" {
				continue
			}
			for k := 1; k <= n; k++ {
				name := fmt.Sprintf("%s#%d/%s", op, k, kind)
				if !try(name, k, n) {
					continue
				}
				runs++
				dir := t.TempDir()
				plan := &faultPlan{op: op, n: k, err: ferr}
				remove := SetFaults(plan.hook)
				s := newTestStore(t, openTestBadger(t, dir))
				want, err := faultWorkload(ctx, s)
				if err == nil && plan.hit {
					t.Errorf("%s: the workload succeeded although a pack operation failed", name)
				}
				if err != nil {
					msg := err.Error()
					if !strings.HasPrefix(msg, "cas:") && !strings.HasPrefix(msg, "no space left on") {
						t.Errorf("%s: error %q does not say where it comes from", name, msg)
					}
					if kind == "ENOSPC" && !errors.Is(err, ErrNoSpace) {
						t.Errorf("%s: %v is not ErrNoSpace", name, err)
					}
					var pe *os.PathError
					if errors.As(err, &pe) {
						t.Errorf("%s: %v looks like a file that could not be read (*fs.PathError)", name, err)
					}
				}
				remove()
				checkAfterFault(t, dir, s, want)
				// Writes work again at once.
				more, err := faultWorkload(ctx, s)
				if err != nil {
					t.Fatalf("%s: the workload after the fault: %v", name, err)
				}
				checkAfterFault(t, dir, s, more)
				if err := s.Close(); err != nil {
					t.Fatalf("%s: close: %v", name, err)
				}
				s = newTestStore(t, openTestBadger(t, dir))
				checkAfterFault(t, dir, s, want)
				checkAfterFault(t, dir, s, more)
				s.Close()
			}
		}
	}
	t.Logf("%d runs with a fault", runs)
}

// faultSample returns which calls k of n a fault matrix tries: all of
// them, or when sample is set the first, the last and a third of the
// others, drawn with TURNBACK_FAULT_SEED or else the clock (logged).
// A draw depends on the seed and the run's name only, not on the order.
func faultSample(t *testing.T, sample bool) func(name string, k, n int) bool {
	t.Helper()
	if !sample {
		return func(string, int, int) bool { return true }
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("TURNBACK_FAULT_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("TURNBACK_FAULT_SEED=%q: %v", v, err)
		}
		seed = n
	}
	t.Logf("faults drawn with seed %d (TURNBACK_FAULT_SEED=%d draws them again)", seed, seed)
	return func(name string, k, n int) bool {
		h := fnv.New64a()
		h.Write([]byte(name))
		return k == 1 || k == n || rand.New(rand.NewPCG(seed, h.Sum64())).IntN(3) == 0
	}
}

// TestHostileStore: records crafted to lie (truncated, oversized, wrong
// hashes, pointers past the end of a pack or of absurd size, a chunk
// list of chunks that add up to other content, a tree that names
// itself) give ErrCorrupt or ErrNotFound, never a panic or wrong bytes.
func TestHostileStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b := openTestBadger(t, dir)
	s := newTestStore(t, b)
	defer s.Close()
	good := randBytes(1, 5000)
	w := s.NewWriter()
	gh, err := w.PutBlob(ctx, good)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	w.Cancel()
	var ptr []byte
	err = b.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(BlobKey(gh))
		if err != nil {
			return err
		}
		ptr, err = item.ValueCopy(nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	p, err := decodePackPtr(ptr)
	if err != nil {
		t.Fatal(err)
	}
	set := func(key, val []byte, packed bool) {
		t.Helper()
		if err := setRaw(b, key, val, packed); err != nil {
			t.Fatal(err)
		}
	}
	hashOf := func(s string) Hash { return Sum([]byte(s)) }
	cases := []struct {
		name string
		h    Hash
		do   func(h Hash)
	}{
		{"empty record", hashOf("a"), func(h Hash) { set(BlobKey(h), nil, false) }},
		{"truncated raw", hashOf("bb"), func(h Hash) { set(BlobKey(h), []byte{codecRaw, 'b'}, false) }},
		{"wrong hash", hashOf("c"), func(h Hash) { set(BlobKey(h), []byte{codecRaw, 'x'}, false) }},
		{"unknown codec", hashOf("d"), func(h Hash) { set(BlobKey(h), []byte{9, 'd'}, false) }},
		{"zstd garbage", hashOf("e"), func(h Hash) { set(BlobKey(h), append([]byte{codecZstd}, 0x28, 0xb5, 0x2f, 0xfd, 0xff, 0xff), false) }},
		{"zstd bomb", hashOf("f"), func(h Hash) {
			// A frame whose header claims a 1 TiB content size.
			frame := []byte{codecZstd, 0x28, 0xb5, 0x2f, 0xfd, 0xe4, 0, 0, 0, 0, 0, 1, 0, 0, 0x01, 0, 0}
			set(BlobKey(h), frame, false)
		}},
		{"pointer past the end", hashOf("g"), func(h Hash) {
			q := p
			q.off = 1 << 30
			set(BlobKey(h), q.encode(), true)
		}},
		{"pointer of absurd size", hashOf("h"), func(h Hash) {
			q := p
			q.size = 1 << 40
			set(BlobKey(h), q.encode(), true)
		}},
		{"pointer to a missing pack", hashOf("i"), func(h Hash) {
			q := p
			q.pack = 999
			set(BlobKey(h), q.encode(), true)
		}},
		{"malformed pointer", hashOf("j"), func(h Hash) { set(BlobKey(h), []byte{packPointerTag, 1}, true) }},
		{"someone else's value", hashOf("k"), func(h Hash) { set(BlobKey(h), ptr, true) }},
		{"chunk list of other content", hashOf("l"), func(h Hash) {
			idx := []byte{indexVersion}
			idx = append(idx, gh[:]...)
			idx = binary.AppendUvarint(idx, uint64(len(good)))
			set(IndexKey(h), idx, false)
		}},
		{"chunk list with a wrong size", hashOf("m"), func(h Hash) {
			idx := []byte{indexVersion}
			idx = append(idx, gh[:]...)
			idx = binary.AppendUvarint(idx, 7)
			set(IndexKey(h), idx, false)
		}},
		{"truncated chunk list", hashOf("n"), func(h Hash) { set(IndexKey(h), append([]byte{indexVersion}, gh[:10]...), false) }},
		{"oversized chunk", hashOf("o"), func(h Hash) {
			idx := []byte{indexVersion}
			idx = append(idx, gh[:]...)
			idx = binary.AppendUvarint(idx, 1<<40)
			set(IndexKey(h), idx, false)
		}},
		{"chunk list naming itself", hashOf("p"), func(h Hash) {
			idx := []byte{indexVersion}
			idx = append(idx, h[:]...)
			idx = binary.AppendUvarint(idx, 100)
			set(IndexKey(h), idx, false)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.do(c.h)
			if _, err := s.GetBlob(ctx, c.h); err == nil {
				t.Error("GetBlob succeeded")
			} else if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrNotFound) {
				t.Errorf("GetBlob: %v, want ErrCorrupt or ErrNotFound", err)
			}
			if err := s.Verify(ctx, c.h, nil); err == nil {
				t.Error("Verify succeeded")
			} else if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrNotFound) {
				t.Errorf("Verify: %v, want ErrCorrupt or ErrNotFound", err)
			}
			r, err := s.Open(ctx, c.h)
			if err == nil {
				hh := blake3.New()
				_, err = io.Copy(hh, r)
			}
			if err == nil {
				t.Error("reading the content to its end succeeded")
			} else if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrNotFound) {
				t.Errorf("Open/Read: %v, want ErrCorrupt or ErrNotFound", err)
			}
		})
	}
	// The good blob still reads, and nothing was deleted.
	if got, err := s.GetBlob(ctx, gh); err != nil || !bytes.Equal(got, good) {
		t.Errorf("the good blob: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, packName(p.pack))); err != nil {
		t.Errorf("its pack: %v", err)
	}
}

// TestFaultInjectionDatabase: the hook sees every database write with
// its operation and the database's directory, and an error it returns is
// the write's result, with nothing written.
func TestFaultInjectionDatabase(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	b := openTestBadger(t, dir)
	injected := errors.New("injected")
	tests := []struct {
		op    string
		write func() error
	}{
		{"dbset", func() error { return b.Set(ctx, Entry{Key: []byte("k"), Value: []byte("v2")}) }},
		{"dbdelete", func() error { return b.Delete(ctx, []byte("k")) }},
		{"dbupdate", func() error {
			return b.Update(ctx, []Entry{{Key: []byte("k"), Value: []byte("v3")}}, nil)
		}},
	}
	if err := b.Set(ctx, Entry{Key: []byte("k"), Value: []byte("v1")}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.op, func(t *testing.T) {
			var seen []string
			remove := SetFaults(func(op, path string) error {
				seen = append(seen, op+" "+path)
				return injected
			})
			err := tt.write()
			remove()
			if !errors.Is(err, injected) {
				t.Fatalf("%s with the hook failing: %v, want the injected error", tt.op, err)
			}
			if want := []string{tt.op + " " + dir}; !slices.Equal(seen, want) {
				t.Errorf("the hook saw %q, want %q", seen, want)
			}
			if v, err := b.Get(ctx, []byte("k")); err != nil || string(v) != "v1" {
				t.Errorf("after the failed %s the value is %q (%v), want v1 unchanged", tt.op, v, err)
			}
		})
	}
}
