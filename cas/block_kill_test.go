package cas

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/turnback/turnback/internal/testtier"
)

const blockKillEnv = "CAS_TEST_BLOCK_KILL"

// blockKillFile is file j of step i: small text (into blocks), now and
// then random bytes or a chunked file.
func blockKillFile(i, j int) []byte {
	seed := uint64(i*1000 + j)
	switch {
	case j == 0 && i%5 == 0:
		return randBytes(seed, 2<<20) // chunked, values of their own
	case j%9 == 0:
		return randBytes(seed, 100+j*53)
	}
	return textBytes(seed, 50+(i*131+j*977)%20000)
}

const blockKillFiles = 60

// TestHelperBlockKill is not a test: TestBlocksKilled runs the test
// binary with it. As a capture does, each step writes its files through
// a Writer (small ones go into blocks), flushes it, then commits the
// record naming them (seq), and prints the step's number; until killed.
func TestHelperBlockKill(t *testing.T) {
	dir := helperDir(t, blockKillEnv, "TestBlocksKilled")
	ctx := context.Background()
	fail := helperFail
	b, err := OpenBadger(ctx, dir, BadgerOptions{LockWait: 10 * time.Second})
	if err != nil {
		fail(err)
	}
	s, err := NewStore(b)
	if err != nil {
		fail(err)
	}
	for i := helperNextStep(ctx, b); ; i++ {
		w := s.NewWriter()
		for j := range blockKillFiles {
			f := blockKillFile(i, j)
			if _, _, err := w.PutFile(ctx, bytes.NewReader(f), int64(len(f))); err != nil {
				fail(err)
			}
		}
		if err := w.Flush(); err != nil {
			fail(err)
		}
		if err := b.Set(ctx, Entry{Key: []byte("seq"), Value: []byte(strconv.Itoa(i))}); err != nil {
			fail(err)
		}
		if err := b.Sync(); err != nil {
			fail(err)
		}
		fmt.Println(i)
	}
}

// TestBlocksKilled: a process writing blocks is killed (SIGKILL) at
// random moments. After each kill every file of every step the record
// names reads back exact, and every blob the store holds decodes and
// matches its address (a torn block is never named).
func TestBlocksKilled(t *testing.T) {
	testtier.Slow(t)
	// The killed helper's stderr, where a race report would go, is
	// not read, and its exit status is not checked: the race detector
	// adds nothing here.
	testtier.NotUnderRace(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 9))
	ctx := context.Background()
	for round := range 10 {
		wait := time.Duration(20+rng.IntN(400)) * time.Millisecond
		reported := runKillHelper(t, round, "TestHelperBlockKill", blockKillEnv, dir, wait, 0)
		b := openTestBadger(t, dir)
		s, err := NewStore(b)
		if err != nil {
			t.Fatal(err)
		}
		seq := 0
		if v, err := b.Get(ctx, []byte("seq")); err == nil {
			seq, _ = strconv.Atoi(string(v))
		}
		if seq < reported {
			t.Fatalf("round %d: seq %d, but the helper reported step %d committed", round, seq, reported)
		}
		for i := 1; i <= seq; i++ {
			for j := range blockKillFiles {
				f := blockKillFile(i, j)
				r, err := s.Open(ctx, Sum(f))
				if err != nil {
					t.Fatalf("round %d: step %d file %d: %v", round, i, j, err)
				}
				var got bytes.Buffer
				if _, err := got.ReadFrom(r); err != nil || !bytes.Equal(got.Bytes(), f) {
					t.Fatalf("round %d: step %d file %d: %d bytes, %v", round, i, j, got.Len(), err)
				}
			}
		}
		n := 0
		err = b.Scan(ctx, prefixBlob, false, func(k, v []byte) error {
			var h Hash
			copy(h[:], k[len(prefixBlob):])
			_, err := s.decode(h, v)
			n++
			return err
		})
		if err != nil {
			t.Fatalf("round %d: a stored blob does not verify: %v", round, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		t.Logf("round %d: killed after %v at step %d (%d blobs verified)", round, wait, seq, n)
	}
}
