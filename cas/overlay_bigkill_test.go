package cas

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/internal/testtier"
)

// Attacks on the log's limits of 512 KiB a commit and 1 MiB a log:
// commits of one large frame each, at the limits as shipped.

const bigKillEnv = "CAS_TEST_OVERLAY_BIG_KILL"

// bigPayload is the value of "big" at step i: 300 to 540 KiB, so that
// a commit is a frame of up to deferMax, or now and then one past it
// (which opens Badger for writing after appending it).
func bigPayload(i int) []byte {
	n := 300<<10 + (i*7919)%(240<<10)
	return randBytes(uint64(i)<<20+5, n)
}

// TestHelperOverlayBigKill is not a test: TestOverlayBigFramesKilled
// runs the test binary with it. Each step commits one Update: seq, big
// and r/<i>, and the delete of r/<i-3>. It prints each step once its
// Sync returned, and closes and opens the store now and then.
func TestHelperOverlayBigKill(t *testing.T) {
	dir := helperDir(t, bigKillEnv, "TestOverlayBigFramesKilled")
	ctx := context.Background()
	open := func() *Badger {
		b, err := OpenBadger(ctx, dir, BadgerOptions{Deferred: true, LockWait: 10 * time.Second})
		if err != nil {
			helperFail(err)
		}
		return b
	}
	b := open()
	for i := helperNextStep(ctx, b); ; i++ {
		err := b.Update(ctx, []Entry{
			{Key: []byte("seq"), Value: []byte(strconv.Itoa(i))},
			{Key: []byte("big"), Value: bigPayload(i)},
			{Key: []byte(fmt.Sprintf("r/%06d", i)), Value: []byte(fmt.Sprintf("record %d", i))},
		}, [][]byte{[]byte(fmt.Sprintf("r/%06d", i-3))})
		if err == nil {
			fmt.Println("sync", i) // for killAtSync
			err = b.Sync()
		}
		if err != nil {
			helperFail(err)
		}
		fmt.Println(i)
		if i%5 == 0 {
			if err := b.Close(); err != nil {
				helperFail(err)
			}
			// A pause, as between two commands: a waiting reader
			// gets its turn (the lock is not a queue).
			time.Sleep(5 * time.Millisecond)
			b = open()
		}
	}
}

// TestOverlayBigFramesKilled: a process committing frames of 300 to
// 540 KiB is killed (SIGKILL) at random moments, in an append most
// often. After each kill a read-only open finds no damage (a torn end
// is not damage), and the store holds the step the helper reported
// last, or the one after, whole.
func TestOverlayBigFramesKilled(t *testing.T) {
	testtier.Slow(t)
	// The killed helper's stderr, where a race report would go, is
	// not read, and its exit status is not checked: the race detector
	// adds nothing here.
	testtier.NotUnderRace(t)
	if !canLockDir {
		t.Skip("no deferred opens here")
	}
	dir := emptyStore(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 11))
	reported, torn := 0, 0
	for round := range 30 {
		wait := time.Duration(5+rng.IntN(150)) * time.Millisecond
		reported = runKillHelper(t, round, "TestHelperOverlayBigKill", bigKillEnv, dir, wait, reported)
		if data, err := os.ReadFile(filepath.Join(dir, overlayName)); err == nil {
			if _, valid, _ := parseOverlay(data, func([]overlayOp) {}); valid < int64(len(data)) {
				torn++
			}
		}
		ro, err := OpenBadger(t.Context(), dir, BadgerOptions{ReadOnly: true})
		if err != nil {
			t.Fatalf("round %d: open after the kill: %v", round, err)
		}
		if err := ro.LogDamage(); err != nil {
			t.Errorf("round %d: a kill left damage: %v", round, err)
		}
		s := checkBigStep(t, ro, round, reported)
		ro.Close()
		reported = s
	}
	t.Logf("%d of 30 kills left a torn end", torn)
	// Kills timed from the start of a Sync: in the frame's encoding and
	// its write most often (a write killed part way is cut short).
	for round := 30; round < 60; round++ {
		wait := time.Duration(rng.IntN(3000)) * time.Microsecond
		reported = killAtSync(t, round, dir, wait, reported)
		if data, err := os.ReadFile(filepath.Join(dir, overlayName)); err == nil {
			if _, valid, _ := parseOverlay(data, func([]overlayOp) {}); valid < int64(len(data)) {
				torn++
				t.Logf("round %d: killed %v into a Sync: a torn end of %d bytes", round, wait, int64(len(data))-valid)
			}
		}
		ro, err := OpenBadger(t.Context(), dir, BadgerOptions{ReadOnly: true})
		if err != nil {
			t.Fatalf("round %d: open after the kill: %v", round, err)
		}
		if err := ro.LogDamage(); err != nil {
			t.Errorf("round %d: a kill left damage: %v", round, err)
		}
		reported = checkBigStep(t, ro, round, reported)
		ro.Close()
	}
	t.Logf("%d of 60 kills left a torn end", torn)
	// A write-mode open folds whatever the last kill left, whole.
	w := mustOpen(t, dir, BadgerOptions{})
	checkBigStep(t, w, 60, reported)
	w.Close()
}

// checkBigStep checks that b holds step reported or the one after,
// whole, and returns it.
func checkBigStep(t *testing.T, b *Badger, round, reported int) int {
	return checkBigSteps(t, b, round, reported, reported+1)
}

// checkBigSteps checks that b holds a step from lo to hi, whole, and
// returns it.
func checkBigSteps(t *testing.T, b *Badger, round, lo, hi int) int {
	t.Helper()
	ctx := t.Context()
	v, err := b.Get(ctx, []byte("seq"))
	if errors.Is(err, ErrNotFound) && lo == 0 {
		return 0 // killed before its first step was committed
	}
	s, _ := strconv.Atoi(string(v))
	if err != nil || s < lo || s > hi {
		t.Fatalf("round %d: seq %q, %v; want %d to %d", round, v, err, lo, hi)
	}
	if got, err := b.Get(ctx, []byte("big")); err != nil || !bytes.Equal(got, bigPayload(s)) {
		t.Errorf("round %d: seq %d but big is %d bytes (want %d), %v", round, s, len(got), len(bigPayload(s)), err)
	}
	for j := max(1, s-6); j <= s; j++ {
		got, err := b.Get(ctx, []byte(fmt.Sprintf("r/%06d", j)))
		if j > s-3 && (err != nil || string(got) != fmt.Sprintf("record %d", j)) {
			t.Errorf("round %d: seq %d but r/%06d is %q, %v", round, s, j, got, err)
		}
		if j <= s-3 && err == nil {
			t.Errorf("round %d: seq %d but r/%06d, deleted at step %d, is there", round, s, j, j+3)
		}
	}
	return s
}

// TestOverlayBigFramesReadWhileAppending: read-only opens while another
// process commits frames of 300 to 540 KiB (TestHelperOverlayBigKill)
// see whole steps only, and no damage: a reader never reads a frame the
// writer is still appending (Badger's shared lock keeps it out until the
// writer closes the store).
func TestOverlayBigFramesReadWhileAppending(t *testing.T) {
	testtier.Slow(t)
	dir := emptyStore(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperOverlayBigKill$", "-test.count=1")
	cmd.Env = append(os.Environ(), bigKillEnv+"="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	seen, last := 0, 0
	// At least 8 s of reads; up to 40 s while fewer than 3 saw a new
	// step (a slow machine, or the race detector).
	start := time.Now()
	for d := time.Since(start); d < 8*time.Second || (seen < 3 && d < 40*time.Second); d = time.Since(start) {
		ro, err := OpenBadger(t.Context(), dir, BadgerOptions{ReadOnly: true, LockWait: 10 * time.Second})
		if err != nil {
			t.Fatalf("read-only open: %v", err)
		}
		if err := ro.LogDamage(); err != nil {
			t.Errorf("a reader saw damage: %v", err)
		}
		if s := checkBigSteps(t, ro, seen, last, 1<<30); s > last {
			last, seen = s, seen+1
		}
		ro.Close()
		time.Sleep(time.Millisecond)
	}
	t.Logf("%d reads saw a new step; the last was %d", seen, last)
	if seen < 3 {
		t.Errorf("only %d reads saw a new step", seen)
	}
}

// killAtSync runs TestHelperOverlayBigKill on dir and kills it (SIGKILL)
// wait after it starts the Sync of its third step. It returns the last
// step the helper reported committed, or reported.
func killAtSync(t *testing.T, round int, dir string, wait time.Duration, reported int) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperOverlayBigKill$", "-test.count=1")
	cmd.Env = append(os.Environ(), bigKillEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Wait() }()
	sc := bufio.NewScanner(out)
	syncs := 0
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "error:") {
			_ = cmd.Process.Kill()
			t.Fatalf("round %d: helper: %s", round, l)
		}
		if n, err := strconv.Atoi(l); err == nil {
			reported = n
		}
		if strings.HasPrefix(l, "sync ") {
			if syncs++; syncs == 3 {
				time.Sleep(wait)
				_ = cmd.Process.Kill()
			}
		}
	}
	return reported
}
