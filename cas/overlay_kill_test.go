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
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/internal/testtier"
)

const killEnv = "CAS_TEST_OVERLAY_KILL"

// killPayload is the value of f/<i>: sizes from tens of bytes to past a
// pack's threshold, now and then large enough to make the commit open
// Badger for writing.
func killPayload(i int) []byte {
	n := 40 + (i*977)%3000
	if i%23 == 0 {
		n = 300 << 10
	}
	return randBytes(uint64(i), n)
}

// TestHelperOverlayKill is not a test: TestOverlayKilled runs the test
// binary with it. It commits one step after another to a deferred store
// in the directory the environment names, prints each step's number once
// its Sync returned, and now and then closes and opens the store again,
// until killed.
func TestHelperOverlayKill(t *testing.T) {
	dir := helperDir(t, killEnv, "TestOverlayKilled")
	ctx := context.Background()
	fail := helperFail
	deferMax, overlayMax = 200<<10, 600<<10
	open := func() *Badger {
		b, err := OpenBadger(ctx, dir, BadgerOptions{Deferred: true, LockWait: 10 * time.Second})
		if err != nil {
			fail(err)
		}
		return b
	}
	b := open()
	for i := helperNextStep(ctx, b); ; i++ {
		// The blob first, then the record that names it (as a capture
		// and its commit do): once the store opened Badger for writing,
		// each is committed by itself.
		w := b.NewBatch()
		if err := w.Put([]byte(fmt.Sprintf("f/%06d", i)), killPayload(i)); err != nil {
			fail(err)
		}
		if err := w.Flush(); err != nil {
			fail(err)
		}
		if err := b.Update(ctx, []Entry{{Key: []byte("seq"), Value: []byte(strconv.Itoa(i))}},
			[][]byte{[]byte(fmt.Sprintf("f/%06d", i-3))}); err != nil {
			fail(err)
		}
		if err := b.Sync(); err != nil {
			fail(err)
		}
		fmt.Println(i)
		if i%7 == 0 {
			if err := b.Close(); err != nil {
				fail(err)
			}
			b = open()
		}
	}
}

// TestOverlayKilled: a process committing to a deferred store is killed
// (SIGKILL) at random moments: in an append, a fold, an open, a close.
// After each kill the store holds every step the process reported
// committed, at most one more, and each step whole: seq = s, with f/j
// present (and exact) for j in (s-3, s] and absent for j <= s-3. (A step
// writes its blob, then the record naming it and the delete of an older
// one in one Update: in write mode those are two commits, in order.)
// A kill matrix: slow tier, as the other kill tests of the package.
func TestOverlayKilled(t *testing.T) {
	testtier.Slow(t)
	if !canLockDir || testing.Short() {
		t.Skip("no deferred opens here, or -short")
	}
	dir := t.TempDir()
	b, err := OpenBadger(t.Context(), dir, BadgerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	reported := 0
	for round := range 12 {
		wait := time.Duration(5+rng.IntN(120)) * time.Millisecond
		reported = runKillHelper(t, round, "TestHelperOverlayKill", killEnv, dir, wait, reported)
		ro, err := OpenBadger(t.Context(), dir, BadgerOptions{ReadOnly: true})
		if err != nil {
			t.Fatalf("round %d: open after the kill: %v", round, err)
		}
		v, err := ro.Get(t.Context(), []byte("seq"))
		if errors.Is(err, ErrNotFound) && reported == 0 {
			err = nil // killed before its first step was committed
		}
		s, _ := strconv.Atoi(string(v))
		if err != nil || s < reported || s > reported+1 {
			t.Fatalf("round %d (killed after %v): seq %q, %v; the helper reported %d committed", round, wait, v, err, reported)
		}
		for j := max(1, s-6); j <= s; j++ {
			got, err := ro.Get(t.Context(), []byte(fmt.Sprintf("f/%06d", j)))
			if j > s-3 && (err != nil || !bytes.Equal(got, killPayload(j))) {
				t.Errorf("round %d: seq %d but f/%06d is %d bytes, %v", round, s, j, len(got), err)
			}
			if j <= s-3 && err == nil {
				t.Errorf("round %d: seq %d but f/%06d, deleted at step %d, is there", round, s, j, j+3)
			}
		}
		ro.Close()
		reported = s
		t.Logf("round %d: killed after %v at step %d", round, wait, s)
	}
}

// helperDir is the directory env names, or skips t: only the test
// named runs a helper process.
func helperDir(t *testing.T, env, test string) string {
	dir := os.Getenv(env)
	if dir == "" {
		t.Skip("helper process for " + test)
	}
	return dir
}

// helperFail ends a helper process, printing the error for the test
// that runs it.
func helperFail(err error) {
	fmt.Println("error:", err)
	os.Exit(1)
}

// helperNextStep is the step after the one "seq" in b names, or 1.
func helperNextStep(ctx context.Context, b *Badger) int {
	start := 1
	if v, err := b.Get(ctx, []byte("seq")); err == nil {
		start, _ = strconv.Atoi(string(v))
		start++
	}
	return start
}

// runKillHelper runs the test binary's helper test (env=dir) and kills
// it (SIGKILL) after wait. It returns the last step number the helper
// printed, or reported if it printed none; an "error:" line fails t.
func runKillHelper(t *testing.T, round int, helper, env, dir string, wait time.Duration, reported int) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+helper+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	timer := time.After(wait)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				_ = cmd.Wait()
				return reported
			}
			if strings.HasPrefix(l, "error:") {
				t.Fatalf("round %d: helper: %s", round, l)
			}
			if n, err := strconv.Atoi(l); err == nil {
				reported = n
			}
		case <-timer:
			_ = cmd.Process.Kill()
			timer = nil
		}
	}
}
