package cli

// Attacks on the reserved commit of undo, redo and restore (cas.Reserve,
// commit cc1c6ed): without a daemon a small restore keeps its records in
// the deferred store's memory and commits them as one overlay frame after
// the files changed. These tests kill the command at each of its restore
// steps and check that the next command leaves a store that verifies and
// a session that goes on working.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
)

// raKill runs args killed at restore step k; it reports whether the
// command was killed (false: it ran to its end, k is past its steps).
func raKill(t *testing.T, e *cliEnv, k int, args ...string) bool {
	t.Helper()
	cmd := e.with(fmt.Sprintf("TURNBACK_TEST_CRASH_AT=%d", k)).command(args...)
	var se strings.Builder
	cmd.Stderr = &se
	err := cmd.Run()
	if err == nil {
		return false
	}
	if cmd.ProcessState == nil || cmd.ProcessState.Exited() {
		t.Fatalf("turnback %s with TURNBACK_TEST_CRASH_AT=%d: %v, want killed\nstderr:\n%s", strings.Join(args, " "), k, err, se.String())
	}
	return true
}

// raVerify runs verify, which must pass; in-process where e.setup
// allows, as it checks the store, not the binary.
func raVerify(t *testing.T, e *cliEnv, what string) {
	t.Helper()
	if r := e.setup().run("verify"); r.code != 0 {
		t.Fatalf("%s: verify: %v", what, r)
	}
}

// raWorld is a small folder with one ended turn in d/, and the user's
// edit in d/ made after the turn ended (outside the turn): the undo's
// result is a state no capture made, with trees of its own.
type raWorld struct {
	e                   *cliEnv
	before, agent, edit treetest.Tree
	undone              treetest.Tree // agent+edit after undo
}

func newRAWorld(t *testing.T) *raWorld {
	t.Helper()
	return newRAWorldIn(t, "")
}

// newRAWorldIn is newRAWorld with its store in store ("": the default
// of newStoreEnv).
func newRAWorldIn(t *testing.T, store string) *raWorld {
	t.Helper()
	e := newStoreEnv(t)
	if store != "" {
		e.store = store
	}
	w := &raWorld{e: e}
	ip := e.setup() // the turn is the setting, not the check
	e.write("d/a.txt", "a before\n")
	e.write("d/b.txt", "b before\n")
	e.write("top.txt", "top\n")
	ip.ok("snap", "-m", "turn")
	w.before = e.tree()
	e.write("d/a.txt", "a by the agent\n")
	e.write("d/n.txt", "new by the agent\n")
	ip.ok("end")
	w.agent = e.tree()
	e.write("d/b.txt", "the user's edit\n")
	w.edit = e.tree()
	w.undone = w.edit.Without("d/n.txt").With(treetest.Tree{"d/a.txt": treetest.File("a before\n", 0o644)})
	return w
}

// TestReserveAttackKilledUndoVerifies: an undo of a small turn killed
// at the first step after its journal (the commit point) is finished by
// the next command; the store must then verify (the result's trees,
// written before the journal, must be durable) and redo must work.
func TestReserveAttackKilledUndoVerifies(t *testing.T) {
	t.Parallel()
	w := newRAWorld(t)
	e := w.e
	// Steps: 1 stage, 2 journal, 3 the first change after it.
	if !raKill(t, e, 3, "undo") {
		t.Fatal("undo ran to its end")
	}
	e.ok("status") // finishes the undo
	e.same("after the recovered undo", w.undone)
	raVerify(t, e, "after the recovered undo")
	e.ok("redo")
	e.same("after redo", w.edit)
	raVerify(t, e, "after redo")
}

// TestReserveAttackKilledMatrix: undo, then redo (with another edit
// outside the turn), then restore of the turn's before-state, each
// killed at every restore step in turn. After the next command (status)
// the folder is wholly before or wholly after the command, the store
// verifies, log says which, and the inverse command brings the other
// state back and verifies too.
func TestReserveAttackKilledMatrix(t *testing.T) {
	testtier.Slow(t)
	t.Parallel()
	type stage struct {
		name   string
		setup  func(w *raWorld) (pre, post treetest.Tree, args []string)
		undone func(got, post treetest.Tree) bool
		back   []string // the command that goes back from post
	}
	for _, st := range []stage{
		{name: "undo", setup: func(w *raWorld) (treetest.Tree, treetest.Tree, []string) {
			return w.edit, w.undone, []string{"undo"}
		}, back: []string{"redo"}},
		{name: "redo", setup: func(w *raWorld) (treetest.Tree, treetest.Tree, []string) {
			w.e.ok("undo")
			w.e.write("top.txt", "top, edited after the undo\n")
			pre := w.e.tree()
			post := w.edit.With(treetest.Tree{"top.txt": treetest.File("top, edited after the undo\n", 0o644)})
			return pre, post, []string{"redo"}
		}, back: []string{"undo"}},
		{name: "restore", setup: func(w *raWorld) (treetest.Tree, treetest.Tree, []string) {
			return w.edit, w.before, []string{"restore", "@1^"}
		}},
	} {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			for k := 1; k < 40; k++ {
				w := newRAWorld(t)
				e := w.e
				pre, post, args := st.setup(w)
				if !raKill(t, e, k, args...) {
					if k < 4 {
						t.Fatalf("%s ran to its end at step %d", args[0], k)
					}
					return
				}
				what := fmt.Sprintf("%s killed at step %d", args[0], k)
				e.ok("status")
				got := e.tree()
				var finished bool
				switch {
				case len(treetest.Diff(got, pre)) == 0:
				case len(treetest.Diff(got, post)) == 0:
					finished = true
				default:
					t.Fatalf("%s: the folder is neither before nor after:\n%s", what, strings.Join(treetest.Diff(got, post), "\n"))
				}
				raVerify(t, e, what)
				// log agrees with the folder: turn 1 is undone exactly
				// when the folder is the undone state.
				wantUndone := (st.name == "undo") == finished
				if st.name == "restore" {
					wantUndone = false
				}
				if got := strings.Contains(e.ok("log").stdout, "undone"); got != wantUndone {
					t.Errorf("%s: log lists turn 1 undone=%v, want %v", what, got, wantUndone)
				}
				// The command's checkpoint is recorded once if it
				// finished, not at all if it was rolled back.
				var cps struct {
					Checkpoints []struct {
						Command string `json:"command"`
					} `json:"checkpoints"`
				}
				e.okJSON(&cps, "checkpoints")
				n := 0
				for _, c := range cps.Checkpoints {
					if strings.HasPrefix(c.Command, args[0]) {
						n++
					}
				}
				if want := map[bool]int{false: 0, true: 1}[finished]; n != want {
					t.Errorf("%s: %d checkpoints of the %s, want %d: %+v", what, n, args[0], want, cps.Checkpoints)
				}
				if st.back == nil {
					if finished {
						e.ok("restore", "@1")
						e.same(what+", restore @1", w.agent)
						raVerify(t, e, what+", restore @1")
					}
					continue
				}
				if !finished {
					e.ok(args...)
					e.same(what+", run again", post)
				}
				e.ok(st.back...)
				e.same(what+", then "+st.back[0], pre)
				raVerify(t, e, what+", then "+st.back[0])
			}
		})
	}
}

// TestReserveAttackDaemon: with a watch daemon serving the store (its
// database open for writing, Reserve a no-op), an undo and a redo of a
// small turn record what they did in Badger, not in an overlay log,
// the store verifies, and once the daemon stopped an undo without it
// (through the overlay log) works on the same store.
func TestReserveAttackDaemon(t *testing.T) {
	t.Parallel()
	e := newUndoEnv(t)
	e.shortXDG()
	e.write("d/a.txt", "a before\n")
	e.write("d/b.txt", "b before\n")
	e.ok("snap", "-m", "turn")
	e.write("d/a.txt", "a by the agent\n")
	e.write("d/n.txt", "new\n")
	e.ok("end")
	e.write("d/b.txt", "the user's edit\n")
	edit := e.tree()
	undone := edit.Without("d/n.txt").With(treetest.Tree{"d/a.txt": treetest.File("a before\n", 0o644)})
	store := e.storeDir()
	e.startWatchDaemon()
	e.ok("undo")
	e.same("after undo through the daemon", undone)
	if _, err := os.Stat(filepath.Join(store, "db", "turnback-overlay.log")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an overlay log while the daemon holds the store: %v", err)
	}
	raVerify(t, e, "after undo through the daemon")
	e.ok("redo")
	e.same("after redo through the daemon", edit)
	raVerify(t, e, "after redo through the daemon")
	e.ok("watch", "--stop")
	e.ok("undo")
	e.same("after undo without the daemon", undone)
	raVerify(t, e, "after undo without the daemon")
	if out := e.ok("log").stdout; !strings.Contains(out, "undone") {
		t.Errorf("log does not show the undo:\n%s", out)
	}
}

// TestReserveAttackReadersDuringUndo: read-only commands (log, show)
// run over and over while undo and redo commit into the overlay log.
// Every one succeeds and sees turn 1 either undone or not, never an
// error or a half-written record; the store verifies at the end. Three
// cycles in the fast tier, six in the slow one.
func TestReserveAttackReadersDuringUndo(t *testing.T) {
	t.Parallel()
	w := newRAWorld(t)
	e := w.e
	done := make(chan struct{})
	errs := make(chan string, 100)
	var reads atomic.Int64
	var wg sync.WaitGroup
	for _, args := range [][]string{{"log"}, {"show", "@1"}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				r := e.run(args...)
				reads.Add(1)
				if r.code != 0 || (args[0] == "log" && !strings.Contains(r.stdout, "turn")) {
					select {
					case errs <- r.String():
					default:
					}
				}
			}
		}()
	}
	cycles := 6
	if testtier.Short() {
		cycles = 3 // readers run the binary all along: each cycle costs
	}
	for range cycles {
		e.ok("undo")
		e.ok("redo")
	}
	close(done)
	wg.Wait()
	close(errs)
	for s := range errs {
		t.Errorf("a reader failed while undo and redo ran:\n%s", s)
	}
	t.Logf("%d reads", reads.Load())
	e.same("after the undo/redo cycles", w.edit)
	raVerify(t, e, "after the undo/redo cycles")
}

// TestReserveAttackKilledForcedRedoKeepsEdit: the user rewrote d/a.txt
// after an undo; redo --force overwrites it, keeping the edit in its
// checkpoint (invariant 1). Killed at the first step after its journal,
// the redo is finished by the next command; the checkpoint it records
// must then hold the edit, and restore of it must bring the edit back.
func TestReserveAttackKilledForcedRedoKeepsEdit(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	e.write("d/a.txt", "a before\n")
	e.write("d/b.txt", "b\n")
	e.ok("snap", "-m", "turn")
	e.write("d/a.txt", "a by the agent\n")
	e.ok("end")
	e.ok("undo")
	const edit = "the user's precious edit\n"
	e.write("d/a.txt", edit)
	// Steps: 1 stage, 2 journal, 3 the first change after it.
	if !raKill(t, e, 3, "--force", "redo") {
		t.Fatal("redo ran to its end")
	}
	e.ok("status")
	if got := string(e.read("d/a.txt")); got != "a by the agent\n" {
		t.Fatalf("after the finished redo d/a.txt is %q", got)
	}
	var cps struct {
		Checkpoints []struct {
			ID      string `json:"id"`
			Command string `json:"command"`
		} `json:"checkpoints"`
	}
	e.okJSON(&cps, "checkpoints")
	cp := ""
	for _, c := range cps.Checkpoints {
		if strings.HasPrefix(c.Command, "redo") {
			cp = c.ID
		}
	}
	if cp == "" {
		t.Fatalf("no checkpoint of the redo: %+v", cps)
	}
	if r := e.run("restore", cp); r.code != 0 {
		t.Fatalf("restore of the forced redo's checkpoint: %v", r)
	}
	if got := string(e.read("d/a.txt")); got != edit {
		t.Errorf("after restore of the checkpoint d/a.txt is %q, want the user's edit", got)
	}
	raVerify(t, e, "after restore of the checkpoint")
}
