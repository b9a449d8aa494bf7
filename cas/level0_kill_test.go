package cas

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/turnback/turnback/internal/testtier"
)

const l0KillEnv = "CAS_TEST_L0_KILL"

// TestHelperL0MergeKill is not a test: TestL0MergeKilled runs the test
// binary with it. Round after round it opens the store in the directory
// the environment names for writing, rewrites the records of 64
// directories and "seq" in one transaction, prints the round's number
// and closes the store, which merges level 0 at nearly every Close
// (l0MergeTables is 2), until killed.
func TestHelperL0MergeKill(t *testing.T) {
	dir := helperDir(t, l0KillEnv, "TestL0MergeKilled")
	ctx := context.Background()
	l0MergeTables = 2
	for {
		b, err := OpenBadger(ctx, dir, BadgerOptions{LockWait: 10 * time.Second})
		if err != nil {
			helperFail(err)
		}
		i := helperNextStep(ctx, b)
		es := []Entry{{Key: []byte("seq"), Value: []byte(strconv.Itoa(i))}}
		for d := range 64 {
			es = append(es, Entry{Key: []byte(fmt.Sprintf("s/dir%02d", d)), Value: l0Value(i, d)})
		}
		if err := b.Set(ctx, es...); err != nil {
			helperFail(err)
		}
		fmt.Println(i)
		if err := b.Close(); err != nil {
			helperFail(err)
		}
	}
}

// TestL0MergeKilled: a process whose every Close merges level 0 is
// killed (SIGKILL) at random moments, in a merge most of the time (the
// store holds 4 MB of other records, which each merge rewrites). After
// each kill the store opens, every table passes Badger's checksums, and
// it holds the last round the process reported or the one after, whole.
func TestL0MergeKilled(t *testing.T) {
	testtier.Slow(t)
	// The killed helper's stderr, where a race report would go, is
	// not read, and its exit status is not checked: the race detector
	// adds nothing here.
	testtier.NotUnderRace(t)
	ctx := context.Background()
	dir := t.TempDir()
	b, err := OpenBadger(ctx, dir, BadgerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		var es []Entry
		for j := range 256 {
			es = append(es, Entry{Key: []byte(fmt.Sprintf("f/%d/%03d", i, j)), Value: randBytes(uint64(i<<10|j), 4000)})
		}
		if err := b.Set(ctx, es...); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 34))
	reported := 0
	for round := range 24 {
		wait := time.Duration(30+rng.IntN(300)) * time.Millisecond
		reported = runKillHelper(t, round, "TestHelperL0MergeKill", l0KillEnv, dir, wait, reported)
		stray := strayTables(t, dir)
		// As the next command: opened for writing (replaying what the
		// killed process left), then read.
		b, err := OpenBadger(ctx, dir, BadgerOptions{})
		if err != nil {
			t.Fatalf("round %d: open after the kill: %v", round, err)
		}
		if err := b.DB().VerifyChecksum(); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		v, err := b.Get(ctx, []byte("seq"))
		if errors.Is(err, ErrNotFound) && reported == 0 {
			v, err = []byte("0"), nil
		}
		s, _ := strconv.Atoi(string(v))
		if err != nil || s < reported || s > reported+1 {
			t.Fatalf("round %d (killed after %v): seq %q, %v; the helper reported %d", round, wait, v, err, reported)
		}
		for d := range 64 {
			got, err := b.Get(ctx, []byte(fmt.Sprintf("s/dir%02d", d)))
			if s > 0 && (err != nil || !bytes.Equal(got, l0Value(s, d))) {
				t.Fatalf("round %d: seq %d but s/dir%02d is %d bytes, %v", round, s, d, len(got), err)
			}
		}
		for i := range 4 {
			for j := range 256 {
				got, err := b.Get(ctx, []byte(fmt.Sprintf("f/%d/%03d", i, j)))
				if err != nil || !bytes.Equal(got, randBytes(uint64(i<<10|j), 4000)) {
					t.Fatalf("round %d: f/%d/%03d: %d bytes, %v", round, i, j, len(got), err)
				}
			}
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		n, _ := level0Tables(t, dir)
		t.Logf("round %d: killed after %v at round %d, %d table files the MANIFEST did not list; level 0 holds %d tables", round, wait, s, stray, n)
		reported = s
	}
}

// strayTables counts the table files in dir that its MANIFEST does not
// list: the output of a merge a kill interrupted, or its inputs.
func strayTables(t *testing.T, dir string) int {
	t.Helper()
	m, err := readManifest(filepath.Join(dir, manifestName))
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.sst"))
	if err != nil {
		t.Fatal(err)
	}
	return len(files) - len(m.live)
}
