//go:build unix

package turnback_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/testtier"
)

// TestPulledChmodIsEdit: a clone's last turn changed secret.env (the
// remote's 0664). The user makes it private in the clone. Undo of the
// cloned turn would give the old content back as 0644: that path holds
// a change made outside the turn, so the undo refuses.
func TestPulledChmodIsEdit(t *testing.T) {
	testtier.Slow(t)
	turnback.SetForeignUmask(t, 0o022)
	for _, mode := range []fs.FileMode{0o600, 0o640, 0o444, 0o000} {
		t.Run(fmt.Sprintf("%03o", uint32(mode)), func(t *testing.T) {
			b := cloneOwned(t, fmt.Sprintf("bucket-chmod-edit-%03o", uint32(mode)), os.Getuid(), func(a *turnback.Repo, wa string) {
				p := filepath.Join(wa, "secret.env")
				turnOf(t, a, func() { must(t, os.WriteFile(p, []byte("K=1\n"), 0o644)) })
				turnOf(t, a, func() {
					must(t, os.WriteFile(p, []byte("K=2\n"), 0o644))
					must(t, os.Chmod(p, 0o664))
				})
			})
			p := filepath.Join(b.WorkTree(), "secret.env")
			must(t, os.Chmod(p, mode))
			res, err := b.Undo(t.Context(), 1, turnback.UndoOptions{})
			if !errors.Is(err, turnback.ErrConflict) {
				t.Errorf("undo after chmod %v: %+v %v, want a conflict", mode, res, err)
			}
			checkModes(t, "the refused undo", b.WorkTree(), map[string]fs.FileMode{"secret.env": mode})
		})
	}
}

// TestLocalChmodIsEdit: the same on a local session (a control).
func TestLocalChmodIsEdit(t *testing.T) {
	ctx := t.Context()
	r, err := turnback.Open(ctx, t.TempDir(), turnback.Options{Store: t.TempDir(), Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p := filepath.Join(r.WorkTree(), "secret.env")
	turnOf(t, r, func() { must(t, os.WriteFile(p, []byte("K=1\n"), 0o644)) })
	turnOf(t, r, func() { must(t, os.WriteFile(p, []byte("K=2\n"), 0o644)) })
	must(t, os.Chmod(p, 0o600))
	if res, err := r.Undo(ctx, 1, turnback.UndoOptions{}); !errors.Is(err, turnback.ErrConflict) {
		t.Errorf("undo after chmod 600: %+v %v, want a conflict", res, err)
	}
}

// TestPulledChmodRedoIsEdit: the remote wrote conf (0664), changed it
// in turn 2 and undid turn 2. The clone holds conf as 0644; the user
// makes it 0600. The redo refuses.
func TestPulledChmodRedoIsEdit(t *testing.T) {
	testtier.Slow(t)
	turnback.SetForeignUmask(t, 0o022)
	b := cloneOwned(t, "bucket-chmod-redo", os.Getuid(), func(a *turnback.Repo, wa string) {
		p := filepath.Join(wa, "conf")
		turnOf(t, a, func() { must(t, os.WriteFile(p, []byte("1\n"), 0o644)); must(t, os.Chmod(p, 0o664)) })
		turnOf(t, a, func() { must(t, os.WriteFile(p, []byte("2\n"), 0o664)) })
		if _, err := a.Undo(t.Context(), 1, turnback.UndoOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	p := filepath.Join(b.WorkTree(), "conf")
	must(t, os.Chmod(p, 0o600))
	if res, err := b.Redo(t.Context(), 1, turnback.RedoOptions{}); !errors.Is(err, turnback.ErrConflict) {
		t.Errorf("redo after chmod 600: %+v %v, want a conflict", res, err)
	}
	checkModes(t, "the refused redo", b.WorkTree(), map[string]fs.FileMode{"conf": 0o600})
}

// cloneUndoneTwo: the remote's session ends in an undo of two turns;
// the second changed a 0777 script that predates both. The clone holds
// it masked (0755).
func cloneUndoneTwo(t *testing.T, bucket string) *turnback.Repo {
	turnback.SetForeignUmask(t, 0o022)
	b := cloneOwned(t, bucket, os.Getuid(), func(a *turnback.Repo, wa string) {
		old := filepath.Join(wa, "old.sh")
		turnOf(t, a, func() { must(t, os.WriteFile(old, []byte("v0\n"), 0o755)); must(t, os.Chmod(old, 0o777)) })
		turnOf(t, a, func() { must(t, os.WriteFile(filepath.Join(wa, "a.txt"), []byte("a\n"), 0o644)) })
		turnOf(t, a, func() { must(t, os.WriteFile(old, []byte("v2\n"), 0o777)) })
		if _, err := a.Undo(t.Context(), 2, turnback.UndoOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	checkModes(t, "clone", b.WorkTree(), map[string]fs.FileMode{"old.sh": 0o755})
	return b
}

// TestCloneRedoTwoSteps: redo of both undone turns, one at a time. The
// second step compares with a state the first step made (no snapshot
// record): the masked script is still no edit.
func TestCloneRedoTwoSteps(t *testing.T) {
	testtier.Slow(t)
	b := cloneUndoneTwo(t, "bucket-redo-two")
	for i := 1; i <= 2; i++ {
		if res, err := b.Redo(t.Context(), 1, turnback.RedoOptions{}); err != nil {
			t.Fatalf("redo %d: %+v %v", i, res, err)
		}
		statusClean(t, b, fmt.Sprintf("redo %d", i))
	}
	if data, _ := os.ReadFile(filepath.Join(b.WorkTree(), "old.sh")); string(data) != "v2\n" {
		t.Errorf("old.sh: %q", data)
	}
	checkModes(t, "redo", b.WorkTree(), map[string]fs.FileMode{"old.sh": 0o755})
}

// TestCloneRedoTwoStepsDry: redo --dry-run 2, and redo 2, of the same
// clone: no conflict either.
func TestCloneRedoTwoStepsDry(t *testing.T) {
	testtier.Slow(t)
	b := cloneUndoneTwo(t, "bucket-redo-two-dry")
	res, err := b.Redo(t.Context(), 2, turnback.RedoOptions{DryRun: true})
	if err != nil || res.DryRun == nil || len(res.DryRun.Conflicts) > 0 {
		t.Fatalf("redo --dry-run 2: %+v %v", res, err)
	}
	if res, err := b.Redo(t.Context(), 2, turnback.RedoOptions{}); err != nil {
		t.Fatalf("redo 2: %+v %v", res, err)
	}
	checkModes(t, "redo 2", b.WorkTree(), map[string]fs.FileMode{"old.sh": 0o755})
	statusClean(t, b, "redo 2")
}

// TestApplyOtherUmaskStatus: pull --apply with umask 077 writes the wide
// files 0700 and 0600; a later pull --apply, of a turn that does not
// touch them, runs with umask 022 (a daemon). Nobody changed the wide
// files: they stay as they are, and status stays clean.
func TestApplyOtherUmaskStatus(t *testing.T) {
	testtier.Slow(t)
	turnback.SetForeignUmask(t, 0o077)
	f := newPullFixture(t, "bucket-apply-other-umask")
	f.turnBy(f.a, func(wa string) { writeWide(t, wa) })
	f.pushPull()
	if _, err := f.b.ApplyPulled(t.Context(), "", false); err != nil {
		t.Fatal(err)
	}
	private := map[string]fs.FileMode{"wide.sh": 0o700, "open.txt": 0o600, "pub": fs.ModeDir | 0o700, "pub/p.txt": 0o600}
	checkModes(t, "apply with 077", f.b.WorkTree(), private)
	statusClean(t, f.b, "apply with 077")
	turnback.SetForeignUmask(t, 0o022)
	f.turn(f.a, "turn.txt", "six")
	f.pushPull()
	if _, err := f.b.ApplyPulled(t.Context(), "", false); err != nil {
		t.Fatal(err)
	}
	checkModes(t, "apply with 022", f.b.WorkTree(), private)
	statusClean(t, f.b, "apply with 022")
}

// TestApplyKeepsUserChmod: after a pull --apply of wide files the user
// makes wide.sh private. A later pull --apply of a turn that changes
// only turn.txt neither conflicts on wide.sh nor changes its mode.
func TestApplyKeepsUserChmod(t *testing.T) {
	testtier.Slow(t)
	turnback.SetForeignUmask(t, 0o022)
	f := newPullFixture(t, "bucket-apply-chmod")
	f.turnBy(f.a, func(wa string) { writeWide(t, wa) })
	f.pushPull()
	if _, err := f.b.ApplyPulled(t.Context(), "", false); err != nil {
		t.Fatal(err)
	}
	must(t, os.Chmod(filepath.Join(f.b.WorkTree(), "wide.sh"), 0o700))
	f.turn(f.a, "turn.txt", "six")
	f.pushPull()
	if res, err := f.b.ApplyPulled(t.Context(), "", false); err != nil {
		t.Fatalf("apply: %+v %v", res, err)
	}
	checkModes(t, "apply", f.b.WorkTree(), map[string]fs.FileMode{"wide.sh": 0o700})
}

// TestApplyRemoteChmod: a pulled turn that only makes a script
// executable (0644 to 0755) is applied: the mode is the turn's change.
func TestApplyRemoteChmod(t *testing.T) {
	testtier.Slow(t)
	turnback.SetForeignUmask(t, 0o022)
	f := newPullFixture(t, "bucket-apply-remote-chmod")
	f.turnBy(f.a, func(wa string) { must(t, os.WriteFile(filepath.Join(wa, "run.sh"), []byte("#!/bin/sh\n"), 0o644)) })
	f.pushPull()
	if _, err := f.b.ApplyPulled(t.Context(), "", false); err != nil {
		t.Fatal(err)
	}
	f.turnBy(f.a, func(wa string) { must(t, os.Chmod(filepath.Join(wa, "run.sh"), 0o755)) })
	f.pushPull()
	if res, err := f.b.ApplyPulled(t.Context(), "", false); err != nil {
		t.Fatalf("apply: %+v %v", res, err)
	}
	checkModes(t, "apply of the chmod", f.b.WorkTree(), map[string]fs.FileMode{"run.sh": 0o755})
	statusClean(t, f.b, "apply of the chmod")
}
