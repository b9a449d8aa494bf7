package cli

// A redo of several steps whose later step changes a path's kind above
// or below what an earlier step set: each step is planned against the
// folder as the steps before leave it, not as the disk is before the
// redo (a random model run found "path component is not a real
// directory" from the dry run that checks a redo of several steps).

import (
	"fmt"
	"testing"

	"github.com/turnback/turnback/internal/testtier"
)

// redoGroupDoc is what these tests read of redo --json, dry run or not.
type redoGroupDoc struct {
	Turns         int
	Restored      []string
	Deleted       []string
	Created       []string
	Conflicts     []string
	NotRestorable []any `json:"not_restorable"`
	DryRun        bool  `json:"dry_run"`
}

// lists is the doc's path lists, to compare.
func (d redoGroupDoc) lists() string {
	return fmt.Sprintf("restored %q deleted %q created %q conflicts %q not restorable %v",
		d.Restored, d.Deleted, d.Created, d.Conflicts, d.NotRestorable)
}

// redoGroupShape is two turns; the redo of their undo re-applies them
// in one command.
type redoGroupShape struct {
	name         string
	base         func(e *cliEnv)
	turn1, turn2 func(e *cliEnv)
	want         string // redo 2's lists
}

var redoGroupShapes = []redoGroupShape{{
	// Turn 1 replaces the file c/c/b by a directory holding c/c/b/b;
	// turn 2 replaces the directory c/c by a file.
	name: "file to dir, then its parent to a file",
	base: func(e *cliEnv) { e.write("c/c/b", "b\n") },
	turn1: func(e *cliEnv) {
		e.rm("c/c/b")
		e.write("c/c/b/b", "bb\n")
	},
	turn2: func(e *cliEnv) {
		e.rm("c/c")
		e.write("c/c", "c as a file\n")
	},
	want: `restored ["c/c"] deleted ["c/c/b"] created [] conflicts [] not restorable []`,
}, {
	// Turn 1 replaces the directory c/c by a file; turn 2 makes it a
	// directory again, with a directory c/c/b where the file c/c/b was.
	name: "dir to file, then a dir below it",
	base: func(e *cliEnv) { e.write("c/c/b", "b\n") },
	turn1: func(e *cliEnv) {
		e.rm("c/c")
		e.write("c/c", "c as a file\n")
	},
	turn2: func(e *cliEnv) {
		e.rm("c/c")
		e.write("c/c/b/b", "bb\n")
	},
	want: `restored ["c/c" "c/c/b"] deleted [] created ["c/c/b/b"] conflicts [] not restorable []`,
}, {
	// Turn 1 deletes the file c/x; turn 2 makes c/x a directory.
	name:  "file deleted, then a dir in its place",
	base:  func(e *cliEnv) { e.write("c/x", "x\n") },
	turn1: func(e *cliEnv) { e.rm("c/x") },
	turn2: func(e *cliEnv) { e.write("c/x/y", "y\n") },
	want:  `restored ["c/x"] deleted [] created ["c/x/y"] conflicts [] not restorable []`,
}}

// TestE2ERedoGroupKinds: for each shape, undo 2 then redo 2: the dry
// run plans what the redo then does, and the redo leaves the folder
// byte for byte as turn 2 did; with and without --force. Twenty other
// files make the redo's capture read only its paths (no daemon). The
// commands run in-process; the daemon variant runs the binary.
func TestE2ERedoGroupKinds(t *testing.T) {
	t.Parallel()
	for _, sh := range redoGroupShapes {
		for _, force := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/force=%v", sh.name, force), func(t *testing.T) {
				t.Parallel()
				redoGroupRun(t, newInProcessEnv(t), sh, force, false)
			})
		}
	}
}

// TestE2ERedoGroupKindsDaemon is TestE2ERedoGroupKinds with a watch
// daemon, whose captures the redo takes.
func TestE2ERedoGroupKindsDaemon(t *testing.T) {
	testtier.Slow(t)
	t.Parallel()
	for _, sh := range redoGroupShapes {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			e := newCLI(t, "work")
			e.shortXDG()
			redoGroupRun(t, e, sh, false, true)
		})
	}
}

// redoGroupRun runs shape sh on e: base, two turns, undo 2, redo 2
// (its dry run first), undo 2 again and two single redos.
func redoGroupRun(t *testing.T, e *cliEnv, sh redoGroupShape, force, daemon bool) {
	for i := range 20 {
		e.write(fmt.Sprintf("p/%d.txt", i), fmt.Sprintf("pad %d\n", i))
	}
	sh.base(e)
	if daemon {
		e.startWatchDaemon()
	}
	before := e.tree()
	e.ok("snap", "-m", "one")
	sh.turn1(e)
	e.ok("end")
	e.ok("snap", "-m", "two")
	sh.turn2(e)
	e.ok("end")
	after := e.tree()
	e.ok("undo", "2")
	e.same("after undo 2", before)

	args := []string{"redo", "2"}
	if force {
		args = append(args, "--force")
	}
	e.ok(append(args, "--dry-run")...)
	var dry, done redoGroupDoc
	e.okJSON(&dry, append(args, "--dry-run")...)
	e.same("after the dry runs", before)
	e.okJSON(&done, args...)
	e.same("after redo 2", after)
	if done.Turns != 2 || done.lists() != sh.want {
		t.Errorf("redo 2: %d turns, %s\nwant 2 turns, %s", done.Turns, done.lists(), sh.want)
	}
	if !dry.DryRun || dry.Turns != 2 || dry.lists() != done.lists() {
		t.Errorf("redo 2 --dry-run: %d turns, %s\nthe redo did: %s", dry.Turns, dry.lists(), done.lists())
	}
	// And back: undo 2 again, then redo one step at a time.
	e.ok("undo", "2")
	e.same("after the second undo 2", before)
	e.ok("redo")
	e.ok("redo")
	e.same("after two single redos", after)
	if r := e.ok("redo"); r.stdout != "nothing to redo\n" {
		t.Errorf("third redo: %v", r)
	}
}
