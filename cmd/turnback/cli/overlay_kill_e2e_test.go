package cli

// snap and end killed (SIGKILL) while they commit large frames to the
// write log: a turn in large directories records some 400 KB of stat
// cache records, one frame of the log (deferMax 512 KiB, log 1 MiB).

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
)

// bigLogState is the work tree after turn i: 6 directories of 700 files
// with long names (a stat cache record of some 70 KB each); turn i
// rewrites 3 files of each.
func bigLogState(i int) treetest.Tree {
	s := treetest.Tree{}
	for d := range 6 {
		s[fmt.Sprintf("dir%d", d)] = treetest.Entry{Kind: treetest.KindDir}
		for f := range 700 {
			// File f was last rewritten by the latest turn j <= i with
			// f in [3j, 3j+3) mod 700, or never.
			v := 0
			for j := i; j >= 1; j-- {
				if k := (f - 3*j%700 + 700) % 700; k < 3 {
					v = j
					break
				}
			}
			p := fmt.Sprintf("dir%d/a-file-with-a-rather-long-name-for-its-record-%04d.txt", d, f)
			s[p] = treetest.Entry{Kind: treetest.KindFile, Data: fmt.Sprintf("dir %d file %d version %d\n", d, f, v)}
		}
	}
	return s
}

// TestBigFramesKilled: snap and end of turns whose records are large
// frames of the write log, killed at random moments of their run. After
// each kill the next command opens the store, verify passes, and every
// command that exited 0 is recorded (a snap: its turn is listed; an end:
// its turn is closed). At the end every turn undoes, one at a time, to
// its before-state byte for byte, and redo brings the last state back.
func TestBigFramesKilled(t *testing.T) {
	testtier.Slow(t)
	e := newStoreEnv(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	treetest.MustWrite(t, e.dir, bigLogState(0))
	e.ok("snap", "-m", "turn 1")
	e.gcApply(bigLogState(0), bigLogState(1))
	start := time.Now()
	e.ok("end")
	full := time.Since(start)
	logPath := filepath.Join(e.store, "db", "turnback-overlay.log")
	fi, err := os.Stat(logPath)
	if err != nil || fi.Size() < 256<<10 {
		t.Fatalf("after an end the write log is %v, %v; want a frame of the turn's records past 256 KiB", fi, err)
	}
	t.Logf("an end takes %v and leaves a log of %d bytes", full.Round(time.Millisecond), fi.Size())

	// killed runs args, killing it after a random delay up to 1.3 x
	// full; it reports whether the command exited 0.
	kills, inside := 0, 0
	killed := func(args ...string) bool {
		if rng.IntN(4) == 0 {
			return e.run(args...).code == 0
		}
		delay := time.Duration(rng.Int64N(int64(full) * 13 / 10))
		cmd := e.command(args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		err := cmd.Wait()
		kills++
		if err != nil && !strings.Contains(err.Error(), "killed") {
			t.Fatalf("%s failed on its own: %v\n%s", strings.Join(args, " "), err, out.String())
		}
		if err != nil {
			inside++
		}
		if r := e.run("log"); r.code != 0 {
			t.Fatalf("%s killed after %v: the next command fails:\n%v", strings.Join(args, " "), delay, r)
		}
		e.verify()
		return err == nil
	}
	const turns = 14
	for i := 2; i <= turns; i++ {
		msg := fmt.Sprintf("turn %d", i)
		for {
			ok := killed("snap", "-m", msg)
			list := e.turns()
			if list[0].Message == msg {
				break
			}
			if ok {
				t.Fatalf("snap %q exited 0 but the newest turn is %+v", msg, list[0])
			}
		}
		e.gcApply(bigLogState(i-1), bigLogState(i))
		ok := killed("end")
		if list := e.turns(); ok && (list[0].Message != msg || list[0].Open) {
			t.Fatalf("end of %q exited 0 but the newest turn is %+v", msg, list[0])
		}
	}
	e.ok("snap", "-m", "last")
	t.Logf("%d kills, %d of them before the command exited", kills, inside)
	list := e.turns()
	if len(list) != turns+1 {
		t.Fatalf("log lists %d turns, want %d: %+v", len(list), turns+1, list)
	}
	for j := range turns {
		if want := fmt.Sprintf("turn %d", turns-j); list[j+1].Message != want || list[j+1].Open {
			t.Fatalf("log entry %d is %+v; want closed %q", j+1, list[j+1], want)
		}
	}
	for j := 1; j <= turns; j++ {
		r := e.ok("undo")
		e.wantTree(fmt.Sprintf("undo %d\n%s", j, r.stdout), bigLogState(turns-j))
	}
	e.ok("redo", fmt.Sprint(turns))
	e.wantTree("redo of every turn", bigLogState(turns))
	e.verify()
}
