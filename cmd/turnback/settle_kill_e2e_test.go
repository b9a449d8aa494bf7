package main

// review43: undo and redo that rewrite ignore rules, killed (SIGKILL)
// while they capture their result again (settle.go), after the files
// are in place and before the records are committed.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
)

// settleKillGen is the user's generated output: 12 directories of 150
// files, ignored by the turn's rule "gen*/" and un-ignored by its undo.
func settleKillGen() treetest.Tree {
	s := treetest.Tree{}
	for d := range 12 {
		for f := range 150 {
			s[fmt.Sprintf("gen%02d/out%03d.txt", d, f)] = treetest.Entry{Kind: treetest.KindFile, Data: fmt.Sprintf("output %d/%d\n", d, f)}
		}
	}
	return s
}

// settleKilled runs args with the trace on, SIGKILLs it d after its
// trace reports the step named step, and returns the exit code (-1:
// killed) and the steps it reported.
func settleKilled(t *testing.T, e *cliEnv, step string, d time.Duration, args ...string) (int, []string) {
	t.Helper()
	cmd := e.with("TURNBACK_TEST_TRACE=1").command(args...)
	pr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var steps []string
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		s, ok := crashParseStep(sc.Text())
		if !ok {
			continue
		}
		steps = append(steps, s)
		if strings.HasSuffix(s, ": "+step) {
			time.AfterFunc(d, func() { _ = cmd.Process.Kill() })
		}
	}
	_ = cmd.Wait()
	return cmd.ProcessState.ExitCode(), steps
}

// TestSettleKilled: an undo that removes the rule "gen*/" (un-ignoring
// 1,800 files of the user's) and a redo that puts it back, each killed
// at random moments of its recapture. After each kill, status finishes
// the command; then the folder is the command's result byte for byte,
// the journal is gone, log agrees, status lists no change and verify
// passes; and the next undo or redo works from there.
func TestSettleKilled(t *testing.T) {
	testtier.Slow(t)
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 43))
	gen := settleKillGen()
	before := treetest.Tree{
		".gitignore": {Kind: treetest.KindFile, Data: "*.log\n"},
		"a.txt":      {Kind: treetest.KindFile, Data: "one\n"},
	}
	after := treetest.Tree{
		".gitignore": {Kind: treetest.KindFile, Data: "*.log\ngen*/\n"},
		"a.txt":      {Kind: treetest.KindFile, Data: "two\n"},
	}
	e := newStoreEnv(t)
	treetest.MustWrite(t, e.dir, before)
	e.ok("snap", "-m", "turn")
	treetest.MustWrite(t, e.dir, after)
	e.ok("end")
	treetest.MustWrite(t, e.dir, gen)
	undone, redone := before.Merge(gen), after.Merge(gen)
	dirsOf := func(tr treetest.Tree) treetest.Tree {
		out := treetest.Tree{}
		for p, n := range tr {
			out[p] = n
			for q := filepath.Dir(p); q != "."; q = filepath.Dir(q) {
				out[filepath.ToSlash(q)] = treetest.Entry{Kind: treetest.KindDir}
			}
		}
		return out
	}
	check := func(what string, want treetest.Tree, isUndone bool) {
		t.Helper()
		e.ok("status")
		e.wantTree(what, dirsOf(want))
		for _, name := range []string{"journal", "staging", "committed"} {
			if _, err := os.Stat(filepath.Join(e.store, name)); err == nil {
				t.Fatalf("%s: %s left in the store", what, name)
			}
		}
		var st struct {
			Changes []json.RawMessage `json:"changes"`
		}
		e.okJSON(&st, "status")
		if len(st.Changes) != 0 {
			t.Fatalf("%s: status lists changes: %s", what, st.Changes)
		}
		if got := strings.Contains(e.ok("log").stdout, "undone"); got != isUndone {
			t.Fatalf("%s: log lists the turn undone: %v, want %v\n%s", what, got, isUndone, e.ok("log").stdout)
		}
		e.verify()
	}
	start := time.Now()
	code, steps := settleKilled(t, e, "no such step", 0, "undo")
	if code != 0 {
		t.Fatalf("undo: exit %d; steps %v", code, steps)
	}
	full := time.Since(start)
	check("undo", undone, true)
	if code, _ := settleKilled(t, e, "no such step", 0, "redo"); code != 0 {
		t.Fatalf("redo: exit %d", code)
	}
	check("redo", redone, false)
	t.Logf("an undo takes %v", full.Round(time.Millisecond))
	kills := 0
	for i := range 16 {
		op, want, isUndone := "undo", undone, true
		if i%2 == 1 {
			op, want, isUndone = "redo", redone, false
		}
		// The recapture and commit take some 20 ms of it.
		d := time.Duration(rng.Int64N(int64(40 * time.Millisecond)))
		code, steps := settleKilled(t, e, "commit", d, op)
		last := ""
		if len(steps) > 0 {
			last = steps[len(steps)-1]
		}
		if code == -1 {
			kills++
		}
		t.Logf("%s killed %v after its commit step: exit %d, last step %q", op, d.Round(time.Microsecond), code, last)
		check(fmt.Sprintf("%s killed after %v", op, d), want, isUndone)
	}
	t.Logf("%d of 16 killed before they exited", kills)
}
