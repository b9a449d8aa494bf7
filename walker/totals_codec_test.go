//go:build unix

package walker

import (
	"bytes"
	"errors"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/turnback/turnback/cas"
)

// TestTotalsPlain: the totals a full capture leaves, carried through
// AppendPlain and LoadPlain, count an incremental capture as the
// originals do. Trees holding uncaptured entries are left out of the
// encoding, so the incremental capture loads those (the big file's
// directory and its ancestors) and nothing else.
func TestTotalsPlain(t *testing.T) {
	dir := incTree(t)
	b := &blobCounter{Memory: cas.NewMemory()}
	s := newStoreOn(t, b)
	opts := Options{SizeLimit: 100, Totals: NewTreeTotals()}
	full := snap(t, dir, s, opts)
	if len(full.Stats.Uncaptured) != 1 {
		t.Fatalf("uncaptured: %+v", full.Stats.Uncaptured)
	}
	enc := opts.Totals.AppendPlain(nil)
	loaded := NewTreeTotals()
	if err := loaded.LoadPlain(enc); err != nil {
		t.Fatal(err)
	}
	if again := loaded.AppendPlain(nil); !bytes.Equal(again, enc) {
		t.Fatal("encoding of the loaded totals differs")
	}
	// "", "a" and "a/b" hold the uncaptured big file; the other four
	// trees ("c", "c/d", "c/d/e", "empty") are carried.
	if len(loaded.m) != 4 {
		t.Fatalf("%d totals carried, want 4", len(loaded.m))
	}
	want := snap(t, dir, s, Options{SizeLimit: 100, Previous: full.Root})
	loads := func(tt *TreeTotals) int64 {
		inc := Options{SizeLimit: 100, Previous: full.Root, Base: full.Root, Dirty: dirtyOf(""), Totals: tt}
		b.gets.Store(0)
		res := snap(t, dir, s, inc)
		if res.Root != want.Root {
			t.Fatalf("root %s, want %s", res.Root.Short(), want.Root.Short())
		}
		sameCounts(t, res.Stats, want.Stats)
		return b.gets.Load()
	}
	with, without := loads(loaded), loads(NewTreeTotals())
	if without-with != 4 {
		t.Errorf("trees loaded: %d with the carried totals, %d without; want 4 fewer", with, without)
	}
}

// TestLoadPlainRejects: LoadPlain refuses what AppendPlain never writes,
// leaving the totals unchanged.
func TestLoadPlainRejects(t *testing.T) {
	good := NewTreeTotals()
	good.put(cas.Hash{1}, &treeTotal{files: 3, dirs: 1, bytes: 10})
	enc := good.AppendPlain(nil)
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"other magic", append([]byte("tbtt2"), enc[5:]...)},
		{"cut", enc[:len(enc)-1]},
		{"trailing", append(bytes.Clone(enc), 0)},
		{"bad flags", append(bytes.Clone(enc[:len(enc)-1]), 7)},
		{"count too large", []byte("tbtt1\xff\xff\xff\xff\x0f")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tt := NewTreeTotals()
			if err := tt.LoadPlain(tc.b); !errors.Is(err, ErrTotalsEncoding) || len(tt.m) != 0 {
				t.Fatalf("LoadPlain = %v with %d totals; want ErrTotalsEncoding and none", err, len(tt.m))
			}
		})
	}
}

// FuzzTotalsPlain: LoadPlain never panics, and what it accepts encodes
// to bytes it reads back to the same totals.
func FuzzTotalsPlain(f *testing.F) {
	tt := NewTreeTotals()
	tt.put(cas.Hash{1}, &treeTotal{files: 3, dirs: 1, bytes: 10, reread: true})
	tt.put(cas.Hash{2}, &treeTotal{symlinks: 1, fifos: 2})
	f.Add(tt.AppendPlain(nil))
	f.Add([]byte("tbtt1\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		a := NewTreeTotals()
		if a.LoadPlain(b) != nil {
			return
		}
		enc := a.AppendPlain(nil)
		c := NewTreeTotals()
		if err := c.LoadPlain(enc); err != nil {
			t.Fatalf("re-encoding refused: %v", err)
		}
		if !bytes.Equal(c.AppendPlain(nil), enc) {
			t.Fatal("re-encoding differs")
		}
	})
}

// TestListingHook: Options.Listing names every directory a capture
// reads, before it reads it, and none it reuses.
func TestListingHook(t *testing.T) {
	dir := incTree(t)
	s := newStore(t)
	var mu sync.Mutex
	var got []string
	listing := func(rel string) {
		mu.Lock()
		got = append(got, rel)
		mu.Unlock()
	}
	full := snap(t, dir, s, Options{Listing: listing})
	sort.Strings(got)
	if want := ",a,a/b,c,c/d,c/d/e,empty"; strings.Join(got, ",") != want {
		t.Fatalf("full capture listed %q, want %q", strings.Join(got, ","), want)
	}
	got = nil
	snap(t, dir, s, Options{Listing: listing, Base: full.Root, Dirty: dirtyOf("", "c", "c/d")})
	sort.Strings(got)
	if want := ",c,c/d"; strings.Join(got, ",") != want {
		t.Fatalf("incremental capture listed %q, want %q", strings.Join(got, ","), want)
	}
}
