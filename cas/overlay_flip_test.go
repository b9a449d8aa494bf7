package cas

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/turnback/turnback/internal/testtier"
)

// checkFlip parses log with byte at flipped by mask and checks that no
// more than the frame holding it is lost: the frames read are frames in
// order minus at most one, and a frame is missing only if at is in it
// and the damage is reported, or it is the last one (a torn end).
func checkFlip(t *testing.T, frames [][]overlayOp, starts []int, log []byte, at int, mask byte) {
	t.Helper()
	bad := bytes.Clone(log)
	bad[at] ^= mask
	got, _, err := parseAll(t, bad)
	holder := -1 // the frame holding the flipped byte
	for i, s := range starts {
		if at >= s {
			holder = i
		}
	}
	skipped := -1
	for i, j := 0, 0; i < len(frames); i++ {
		if j < len(got) && sameOps(got[j], frames[i]) {
			j++
			continue
		}
		if skipped >= 0 {
			t.Fatalf("flip %#x at %d: frames %d and %d lost (%d of %d read): %v", mask, at, skipped, i, len(got), len(frames), err)
		}
		skipped = i
	}
	if len(got) != len(frames)-max(0, min(1, skipped+1)) {
		t.Fatalf("flip %#x at %d: %d frames read of %d, one lost at most: %v", mask, at, len(got), len(frames), err)
	}
	switch {
	case skipped >= 0 && skipped != holder:
		t.Fatalf("flip %#x at %d (frame %d): frame %d lost", mask, at, holder, skipped)
	case skipped >= 0 && err == nil && skipped != len(frames)-1:
		t.Fatalf("flip %#x at %d: frame %d lost without a word", mask, at, skipped)
	case at < len(overlayMagic) && err == nil:
		t.Fatalf("flip %#x at %d: a damaged magic, no error", mask, at)
	case holder >= 0 && skipped < 0:
		t.Fatalf("flip %#x at %d: frame %d read whole after a flip in it", mask, at, holder)
	}
}

// FuzzOverlayFlip: a byte of a log flipped anywhere costs at most the
// frame holding it (checkFlip).
func FuzzOverlayFlip(f *testing.F) {
	frames, log, starts := fiveFrames()
	for _, at := range []uint32{0, 9, 24, 27, 30, 40, uint32(starts[2]) + 2, uint32(starts[4]) + 100, uint32(len(log) - 1)} {
		f.Add(at, byte(1))
	}
	f.Fuzz(func(t *testing.T, at uint32, mask byte) {
		if mask == 0 {
			return
		}
		checkFlip(t, frames, starts, log, int(at%uint32(len(log))), mask)
	})
}

// TestOverlayFlipRandom: random flips of random bytes of a store's log
// (a log of frames of records, values through batches and pointers into
// pack files), each on a fresh copy of the store: never more than the
// frame holding the byte is lost, and the store is never one that no
// open takes: a read-only open shows every other frame, a salvage keeps
// them all, and after it every open works and writes again. The fast
// tier flips 10 stores, the slow tier 60.
func TestOverlayFlipRandom(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 30))
	t.Logf("seed %d", seed)

	// Parse level: many flips.
	frames, log, starts := fiveFrames()
	for range 20000 {
		checkFlip(t, frames, starts, log, rng.IntN(len(log)), byte(1+rng.IntN(255)))
	}

	// Store level: fewer (each copies and opens a store four times).
	ctx := t.Context()
	tmpl := emptyStore(t)
	const n = 8
	d := mustOpen(t, tmpl, BadgerOptions{Deferred: true})
	for i := range n {
		w := d.NewBatch()
		if err := w.Put([]byte(fmt.Sprintf("b%d", i)), killPayload(i+1)); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := d.Set(ctx, Entry{Key: []byte(fmt.Sprintf("k%d", i)), Value: []byte(fmt.Sprintf("v%d", i))}); err != nil {
			t.Fatal(err)
		}
		if err := d.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(filepath.Join(tmpl, overlayName))
	if err != nil {
		t.Fatal(err)
	}
	iters := 60
	if testtier.Short() {
		iters = 10
	}
	for it := range iters {
		dir := filepath.Join(t.TempDir(), "db")
		copyDir(t, tmpl, dir)
		at := rng.IntN(len(orig))
		flipByte(t, filepath.Join(dir, overlayName), at, byte(1+rng.IntN(255)))
		lost := func(b *Badger, when string) []int {
			var gone []int
			for i := range n {
				v, err := b.Get(ctx, []byte(fmt.Sprintf("k%d", i)))
				blob, berr := b.Get(ctx, []byte(fmt.Sprintf("b%d", i)))
				switch {
				case err != nil && berr != nil:
					gone = append(gone, i)
				case err != nil || berr != nil || string(v) != fmt.Sprintf("v%d", i) || !bytes.Equal(blob, killPayload(i+1)):
					t.Fatalf("iteration %d, flip at %d, %s: frame %d half there or wrong: %q %v, %d bytes %v", it, at, when, i, v, err, len(blob), berr)
				}
			}
			if len(gone) > 1 {
				t.Fatalf("iteration %d, flip at %d, %s: frames %v lost", it, at, when, gone)
			}
			return gone
		}
		ro := mustOpen(t, dir, BadgerOptions{ReadOnly: true})
		before := lost(ro, "read-only")
		ro.Close()
		s := mustOpen(t, dir, BadgerOptions{Deferred: true, Salvage: true})
		if after := lost(s, "salvaged"); len(after) != len(before) {
			t.Fatalf("iteration %d, flip at %d: %v lost read-only, %v after the salvage", it, at, before, after)
		}
		if err := s.Set(ctx, Entry{Key: []byte("next"), Value: []byte("write")}); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		for _, o := range []BadgerOptions{{Deferred: true}, {ReadOnly: true}} {
			b := mustOpen(t, dir, o)
			if b.LogDamage() != nil {
				t.Fatalf("iteration %d, flip at %d: damage after the salvage: %v", it, at, b.LogDamage())
			}
			lost(b, "reopened")
			mustGet(t, b, "next", "write")
			b.Close()
		}
	}
}

// copyDir copies the files of from into a new directory to.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o700); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Type().IsRegular() && e.Name() != holderFile {
			if err := copyFile(filepath.Join(from, e.Name()), filepath.Join(to, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
}
