package cas

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/turnback/turnback/internal/testtier"
)

const largeKillEnv = "CAS_TEST_LARGE_KILL"

// largeKillPayload is the value of rec/big at step i: around the value
// threshold (below, at, above) and well past it.
func largeKillPayload(i int) []byte {
	sizes := []int{valueThreshold - 1, valueThreshold, valueThreshold + 1, 2<<20 + 7, 100}
	return randBytes(uint64(i)+1000, sizes[i%len(sizes)])
}

// TestHelperLargeKill is not a test: TestLargeRecordKilled runs the
// test binary with it. Step i sets rec/big and seq together (by Set or
// by Update), syncs and prints i; every fourth step reclaims (repack,
// value log GC), every seventh closes and opens the store again.
func TestHelperLargeKill(t *testing.T) {
	dir := helperDir(t, largeKillEnv, "TestLargeRecordKilled")
	ctx := context.Background()
	fail := helperFail
	open := func() *Badger {
		b, err := OpenBadger(ctx, dir, BadgerOptions{LockWait: 10 * time.Second})
		if err != nil {
			fail(err)
		}
		return b
	}
	b := open()
	for i := helperNextStep(ctx, b); ; i++ {
		es := []Entry{{Key: []byte("rec/big"), Value: largeKillPayload(i)}, {Key: []byte("seq"), Value: []byte(strconv.Itoa(i))}}
		var err error
		if i%2 == 0 {
			err = b.Set(ctx, es...)
		} else {
			err = b.Update(ctx, es, nil)
		}
		if err != nil {
			fail(err)
		}
		if err := b.Sync(); err != nil {
			fail(err)
		}
		fmt.Println(i)
		if i%4 == 0 {
			if err := b.Reclaim(ctx); err != nil {
				fail(err)
			}
		}
		if i%7 == 0 {
			if err := b.Close(); err != nil {
				fail(err)
			}
			b = open()
		}
	}
}

// TestLargeRecordKilled: a process replacing a large record (a pack
// write, then the pointer's commit) and reclaiming is killed (SIGKILL)
// at random moments. After each kill, seq is the step it reported or
// the next, and rec/big is that step's value, whole: never a pointer
// into a pack that is missing or short. A reclaim after the kill keeps
// it so.
func TestLargeRecordKilled(t *testing.T) {
	testtier.Slow(t)
	// The killed helper's stderr, where a race report would go, is
	// not read, and its exit status is not checked: the race detector
	// adds nothing here.
	testtier.NotUnderRace(t)
	dir := t.TempDir()
	b, err := OpenBadger(t.Context(), dir, BadgerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 11))
	reported := 0
	check := func(round int, b *Badger, what string) int {
		t.Helper()
		v, err := b.Get(t.Context(), []byte("seq"))
		if errors.Is(err, ErrNotFound) && reported == 0 {
			return 0
		}
		s, _ := strconv.Atoi(string(v))
		if err != nil || s < reported || s > reported+1 {
			t.Fatalf("round %d, %s: seq %q, %v; the helper reported %d", round, what, v, err, reported)
		}
		got, err := b.Get(t.Context(), []byte("rec/big"))
		if want := largeKillPayload(s); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("round %d, %s: seq %d, rec/big %d bytes, %v; want %d bytes", round, what, s, len(got), err, len(want))
		}
		return s
	}
	for round := range 16 {
		wait := time.Duration(20+rng.IntN(300)) * time.Millisecond
		reported = runKillHelper(t, round, "TestHelperLargeKill", largeKillEnv, dir, wait, reported)
		ro, err := OpenBadger(t.Context(), dir, BadgerOptions{ReadOnly: true})
		if err != nil {
			t.Fatalf("round %d: open after the kill: %v", round, err)
		}
		s := check(round, ro, "after the kill")
		ro.Close()
		if round%3 == 2 {
			w, err := OpenBadger(t.Context(), dir, BadgerOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Reclaim(t.Context()); err != nil {
				t.Fatalf("round %d: reclaim: %v", round, err)
			}
			check(round, w, "after a reclaim")
			w.Close()
		}
		reported = s
		t.Logf("round %d: killed after %v at step %d", round, wait, s)
	}
}
