package gitindex

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"
)

// wordsEWAH is an iterator over the bitmap of the words given.
func wordsEWAH(words ...uint64) *ewah {
	var b []byte
	for _, w := range words {
		b = binary.BigEndian.AppendUint64(b, w)
	}
	return &ewah{r: bufio.NewReader(bytes.NewReader(b)), words: uint32(len(words))}
}

// rlw is a run-length word: a run of words of bit, then lits literals.
func rlw(bit, run, lits uint64) uint64 { return bit | run<<1 | lits<<33 }

// TestCountBitsRuns: countBits takes a run of ones whole, with the same
// count and the same error as reading it bit by bit. A hostile index's
// run of billions of ones (found by FuzzSplitIndex: 6 s) is one step.
func TestCountBitsRuns(t *testing.T) {
	for _, tc := range []struct {
		name  string
		words []uint64
		limit uint32
		want  uint32
		err   string
	}{
		{"run then literal", []uint64{rlw(1, 4, 1), 0b1011}, 1000, 259, ""},
		{"zeros, ones, literal", []uint64{rlw(0, 2, 0), rlw(1, 1, 1), 1 << 63}, 1000, 65, ""},
		{"run ends at the limit", []uint64{rlw(1, 1, 0)}, 64, 64, ""},
		{"run past the limit", []uint64{rlw(1, 1, 0)}, 63, 0, "replaces entry 63 of 63"},
		{"run past, starting late", []uint64{rlw(0, 1, 0), rlw(1, 2, 0)}, 100, 0, "replaces entry 100 of 100"},
		{"run starting past", []uint64{rlw(0, 2, 0), rlw(1, 1, 0)}, 100, 0, "replaces entry 128 of 100"},
		{"billions of ones", []uint64{rlw(1, 1<<32-1, 0)}, 1<<32 - 1, 0, "replaces entry 4294967295 of 4294967295"},
		{"billions, all below", []uint64{rlw(1, 1<<26-1, 0)}, 1<<32 - 1, 1<<32 - 64, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := countBits(wordsEWAH(tc.words...), tc.limit)
			if tc.err == "" {
				if err != nil || got != tc.want {
					t.Fatalf("countBits = %d, %v; want %d", got, err, tc.want)
				}
				return
			}
			if !errors.Is(err, ErrFormat) || err.Error() != "gitindex: malformed index: split index: "+tc.err {
				t.Fatalf("countBits = %d, %v; want %q", got, err, tc.err)
			}
		})
	}
}

// TestCountBitsMatchesNext: on random bitmaps, countBits counts what
// next reports one by one.
func TestCountBitsMatchesNext(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		var ps []uint64
		for p := uint64(0); p < 2000; p++ {
			switch r.IntN(4) {
			case 0:
				ps = append(ps, p)
			case 1: // long runs of ones
				for end := p + uint64(r.IntN(300)); p < end; p++ {
					ps = append(ps, p)
				}
			}
		}
		b := ewahBytes(ps)
		limit := uint32(r.IntN(2100))
		it := bitmap{off: 8, words: binary.BigEndian.Uint32(b[4:])}
		got, err := countBits(it.iter(bytes.NewReader(b)), limit)
		want, wantErr := uint32(0), error(nil)
		for _, p := range ps {
			if p >= uint64(limit) {
				want, wantErr = 0, errors.New("past")
				break
			}
			want++
		}
		if got != want || (err == nil) != (wantErr == nil) {
			t.Fatalf("limit %d: countBits = %d, %v; want %d, %v", limit, got, err, want, wantErr)
		}
	}
}
