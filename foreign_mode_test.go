//go:build unix

package turnback_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/testtier"
)

// wideModes: what a restore here writes, for each process umask, of
// what another machine recorded: never group or other write.
var wideModes = []struct {
	umask uint32
	want  map[string]fs.FileMode
}{
	{0o022, map[string]fs.FileMode{"wide.sh": 0o755, "open.txt": 0o644, "pub": fs.ModeDir | 0o755, "pub/p.txt": 0o644}},
	{0o002, map[string]fs.FileMode{"wide.sh": 0o755, "open.txt": 0o644, "pub": fs.ModeDir | 0o755, "pub/p.txt": 0o644}},
	{0o077, map[string]fs.FileMode{"wide.sh": 0o700, "open.txt": 0o600, "pub": fs.ModeDir | 0o700, "pub/p.txt": 0o600}},
}

// writeWide writes, in dir, a 0777 script, a 0666 file and a 0777
// directory holding a 0666 file.
func writeWide(t *testing.T, dir string) {
	t.Helper()
	must(t, os.WriteFile(filepath.Join(dir, "wide.sh"), []byte("#!/bin/sh\necho wide\n"), 0o755))
	must(t, os.Chmod(filepath.Join(dir, "wide.sh"), 0o777))
	must(t, os.WriteFile(filepath.Join(dir, "open.txt"), []byte("open\n"), 0o644))
	must(t, os.Chmod(filepath.Join(dir, "open.txt"), 0o666))
	must(t, os.Mkdir(filepath.Join(dir, "pub"), 0o755))
	must(t, os.Chmod(filepath.Join(dir, "pub"), 0o777))
	must(t, os.WriteFile(filepath.Join(dir, "pub", "p.txt"), []byte("p\n"), 0o644))
	must(t, os.Chmod(filepath.Join(dir, "pub", "p.txt"), 0o666))
}

// checkModes fails t unless each path of dir has its wanted mode.
func checkModes(t *testing.T, step, dir string, want map[string]fs.FileMode) {
	t.Helper()
	for p, m := range want {
		fi, err := os.Lstat(filepath.Join(dir, p))
		if err != nil {
			t.Errorf("%s: %v", step, err)
			continue
		}
		if fi.Mode() != m {
			t.Errorf("%s: %s is %v, want %v", step, p, fi.Mode(), m)
		}
	}
}

// TestRestorePulledMasksModes: a pulled state holds a 0777 script, a
// 0666 file and a 0777 directory. restore @N, pull --apply and clone
// (and undo and redo of the cloned turn) write them as a file made here
// would be: no group or other write the umask clears. Status is clean
// after each.
func TestRestorePulledMasksModes(t *testing.T) {
	testtier.Slow(t)
	for _, c := range wideModes {
		t.Run(fmt.Sprintf("%03o", c.umask), func(t *testing.T) {
			turnback.SetForeignUmask(t, c.umask)
			for _, op := range []string{"restore", "apply"} {
				f := newPullFixture(t, fmt.Sprintf("bucket-mode-%s-%03o", op, c.umask))
				f.turnBy(f.a, func(wa string) { writeWide(t, wa) })
				f.pushPull()
				var err error
				if op == "restore" {
					_, err = f.b.Restore(t.Context(), "@6", turnback.RestoreOptions{})
				} else {
					_, err = f.b.ApplyPulled(t.Context(), "", false)
				}
				if err != nil {
					t.Fatalf("%s: %v", op, err)
				}
				checkModes(t, op, f.b.WorkTree(), c.want)
				statusClean(t, f.b, op)
				// A second pulled turn changes the wide files: the folder
				// holds them masked, which is no conflict.
				f.turnBy(f.a, func(wa string) {
					for _, p := range []string{"wide.sh", "open.txt", "pub/p.txt"} {
						must(t, os.WriteFile(filepath.Join(wa, p), []byte("two\n"), 0o600))
					}
				})
				f.pushPull()
				if _, err := f.b.ApplyPulled(t.Context(), "", false); err != nil {
					t.Fatalf("%s, then pull --apply: %v", op, err)
				}
				checkModes(t, op+", then pull --apply", f.b.WorkTree(), c.want)
				statusClean(t, f.b, op+", then pull --apply")
			}
			b := cloneOwned(t, fmt.Sprintf("bucket-mode-clone-%03o", c.umask), os.Getuid(), func(a *turnback.Repo, wa string) {
				turnOf(t, a, func() { writeWide(t, wa) })
				turnOf(t, a, func() { must(t, os.WriteFile(filepath.Join(wa, "wide.sh"), []byte("#!/bin/sh\n"), 0o777)) })
			})
			checkModes(t, "clone", b.WorkTree(), c.want)
			statusClean(t, b, "the clone")
			ctx := t.Context()
			if _, err := b.Undo(ctx, 1, turnback.UndoOptions{}); err != nil {
				t.Fatalf("undo of turn 2: %v", err)
			}
			if data, err := os.ReadFile(filepath.Join(b.WorkTree(), "wide.sh")); err != nil || string(data) != "#!/bin/sh\necho wide\n" {
				t.Errorf("wide.sh after undo of turn 2: %q %v", data, err)
			}
			checkModes(t, "undo of turn 2", b.WorkTree(), c.want)
			statusClean(t, b, "the undo of turn 2")
			if _, err := b.Undo(ctx, 1, turnback.UndoOptions{}); err != nil {
				t.Fatalf("undo of turn 1: %v", err)
			}
			if _, err := os.Lstat(filepath.Join(b.WorkTree(), "wide.sh")); !os.IsNotExist(err) {
				t.Errorf("wide.sh after undo of turn 1: %v, want none", err)
			}
			if _, err := b.Redo(ctx, 1, turnback.RedoOptions{}); err != nil {
				t.Fatalf("redo: %v", err)
			}
			checkModes(t, "redo", b.WorkTree(), c.want)
			statusClean(t, b, "the redo")
		})
	}
}

// TestUndoLocalWideModeKept: a state captured here keeps its exact
// modes: undo and restore by id give the 0777 script back as 0777,
// whatever the umask.
func TestUndoLocalWideModeKept(t *testing.T) {
	turnback.SetForeignUmask(t, 0o022)
	ctx := t.Context()
	r, err := turnback.Open(ctx, t.TempDir(), turnback.Options{Store: t.TempDir(), Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	wt := r.WorkTree()
	turnOf(t, r, func() { writeWide(t, wt) })
	turns, _, err := r.Turns(ctx)
	if err != nil || len(turns) != 1 {
		t.Fatalf("turns: %v %v", turns, err)
	}
	wide := map[string]fs.FileMode{"wide.sh": 0o777, "open.txt": 0o666, "pub": fs.ModeDir | 0o777, "pub/p.txt": 0o666}
	turnOf(t, r, func() {
		must(t, os.Remove(filepath.Join(wt, "wide.sh")))
		must(t, os.Chmod(filepath.Join(wt, "open.txt"), 0o600))
		must(t, os.RemoveAll(filepath.Join(wt, "pub")))
	})
	if _, err := r.Undo(ctx, 1, turnback.UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	checkModes(t, "undo", wt, wide)
	statusClean(t, r, "the undo")
	turnOf(t, r, func() { must(t, os.RemoveAll(filepath.Join(wt, "pub"))) })
	if _, err := r.Restore(ctx, turns[0].After.String(), turnback.RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	checkModes(t, "restore by id", wt, wide)
}

// TestRecoverPulledMasksModes: pull --apply and restore @N of a
// pulled state stop after their commit point (a fault placing
// pub/p.txt); the next Open finishes them from the journal with the
// masked modes, and status is clean.
func TestRecoverPulledMasksModes(t *testing.T) {
	testtier.Slow(t)
	turnback.SetForeignUmask(t, 0o022)
	want := wideModes[0].want
	for _, op := range []string{"apply", "restore"} {
		t.Run(op, func(t *testing.T) {
			f := newPullFixture(t, "bucket-recover-mode-"+op)
			f.turnBy(f.a, func(wa string) { writeWide(t, wa) })
			f.pushPull()
			ctx := t.Context()
			f.b.SetRestoreHook(func(step string) error {
				if step == "place pub/p.txt" {
					return errors.New("injected fault")
				}
				return nil
			})
			var err error
			if op == "apply" {
				_, err = f.b.ApplyPulled(ctx, "", false)
			} else {
				_, err = f.b.Restore(ctx, "@6", turnback.RestoreOptions{})
			}
			if !errors.Is(err, turnback.ErrUnfinished) {
				t.Fatalf("%s with a fault at pub/p.txt: %v, want ErrUnfinished", op, err)
			}
			wb, store := f.b.WorkTree(), f.b.StoreDir()
			f.b.Close()
			b, err := turnback.Open(ctx, wb, turnback.Options{Store: store, Session: "s"})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			checkModes(t, "the recovery", wb, want)
			statusClean(t, b, "the recovery")
		})
	}
}

// TestUndoMergePulledMasksModes: undo --merge of a pulled turn that
// changed a line of a 0777 script, after a local edit of another line.
// The merged script is 0755 (umask 022), as the apply wrote it, never
// the remote's 0777.
func TestUndoMergePulledMasksModes(t *testing.T) {
	testtier.Slow(t)
	turnback.SetForeignUmask(t, 0o022)
	f := newPullFixture(t, "bucket-merge-mode")
	ctx := t.Context()
	lines := []string{"#!/bin/sh", "echo 1", "echo 2", "echo 3", "echo 4", "echo 5", "echo 6", "echo 7", ""}
	write := func(path string, l []string) {
		must(t, os.WriteFile(path, []byte(strings.Join(l, "\n")), 0o755))
		must(t, os.Chmod(path, 0o777))
	}
	f.turnBy(f.a, func(wa string) { write(filepath.Join(wa, "tool"), lines) })
	f.turnBy(f.a, func(wa string) {
		l := append([]string(nil), lines...)
		l[1] = "echo one"
		write(filepath.Join(wa, "tool"), l)
	})
	f.pushPull()
	if res, err := f.b.ApplyPulled(ctx, "", false); err != nil {
		t.Fatalf("apply: %+v %v", res, err)
	}
	tool := filepath.Join(f.b.WorkTree(), "tool")
	checkModes(t, "the apply", f.b.WorkTree(), map[string]fs.FileMode{"tool": 0o755})
	l := append([]string(nil), lines...)
	l[1], l[7] = "echo one", "echo seven"
	must(t, os.WriteFile(tool, []byte(strings.Join(l, "\n")), 0o755))
	res, err := f.b.Undo(ctx, 1, turnback.UndoOptions{Merge: turnback.MergeClean})
	if err != nil {
		t.Fatalf("undo --merge: %+v %v", res, err)
	}
	if data, err := os.ReadFile(tool); err != nil || !strings.Contains(string(data), "echo 1\n") || !strings.Contains(string(data), "echo seven") {
		t.Fatalf("tool after the merge: %q %v", data, err)
	}
	checkModes(t, "undo --merge", f.b.WorkTree(), map[string]fs.FileMode{"tool": 0o755})
}

// TestCloneRedoRemoteUndoMasksModes: the remote's session ends in an
// undo of the turn that wrote the wide files, so the clone's redo goal
// comes from the remote. The redo writes them masked.
func TestCloneRedoRemoteUndoMasksModes(t *testing.T) {
	testtier.Slow(t)
	turnback.SetForeignUmask(t, 0o002)
	for _, paths := range [][]string{nil, {"wide.sh"}} {
		name := strings.Join(append([]string{"undo"}, paths...), "-")
		t.Run(name, func(t *testing.T) {
			b := cloneOwned(t, "bucket-redo-mode-"+strings.ReplaceAll(name, ".", "-"), os.Getuid(), func(a *turnback.Repo, wa string) {
				turnOf(t, a, func() { writeWide(t, wa) })
				if _, err := a.Undo(t.Context(), 1, turnback.UndoOptions{Paths: paths}); err != nil {
					t.Fatal(err)
				}
			})
			if res, err := b.Redo(t.Context(), 1, turnback.RedoOptions{}); err != nil {
				t.Fatalf("redo: %+v %v", res, err)
			}
			checkModes(t, "redo", b.WorkTree(), wideModes[1].want)
			statusClean(t, b, "the redo")
		})
	}
}

// TestCloneRedoRemoteUndoModified: the remote's session ends in an undo
// of a turn that changed the 0777 script (and the owner, root's there,
// is not the clone's user). The clone holds the script masked and the
// user's; its redo is no conflict, and writes the turn's content masked.
func TestCloneRedoRemoteUndoModified(t *testing.T) {
	testtier.Slow(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	turnback.SetForeignUmask(t, 0o022)
	const user = 1234
	b := cloneOwned(t, "bucket-redo-mode-modified", user, func(a *turnback.Repo, wa string) {
		turnOf(t, a, func() { writeWide(t, wa) })
		turnOf(t, a, func() { must(t, os.WriteFile(filepath.Join(wa, "wide.sh"), []byte("#!/bin/sh\necho two\n"), 0o777)) })
		if _, err := a.Undo(t.Context(), 1, turnback.UndoOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	checkModes(t, "clone", b.WorkTree(), wideModes[0].want)
	if res, err := b.Redo(t.Context(), 1, turnback.RedoOptions{}); err != nil {
		t.Fatalf("redo: %+v %v", res, err)
	}
	if data, err := os.ReadFile(filepath.Join(b.WorkTree(), "wide.sh")); err != nil || string(data) != "#!/bin/sh\necho two\n" {
		t.Errorf("wide.sh after the redo: %q %v", data, err)
	}
	checkModes(t, "redo", b.WorkTree(), wideModes[0].want)
	checkOwned(t, b.WorkTree(), ownedTree{"wide.sh": {user, 0o755}})
	statusClean(t, b, "the redo")
}

// TestPulledModesOtherUmask: a clone written with umask 077 (the user's
// shell), then undo and redo with umask 022 (a watch daemon started
// elsewhere). The folder holds the pulled files as a restore here wrote
// them, with another umask: that is no edit, so no conflict. What the
// undo and redo write has the umask of their process.
func TestPulledModesOtherUmask(t *testing.T) {
	testtier.Slow(t)
	turnback.SetForeignUmask(t, 0o077)
	b := cloneOwned(t, "bucket-mode-other-umask", os.Getuid(), func(a *turnback.Repo, wa string) {
		turnOf(t, a, func() { writeWide(t, wa) })
		turnOf(t, a, func() {
			must(t, os.WriteFile(filepath.Join(wa, "wide.sh"), []byte("#!/bin/sh\necho two\n"), 0o777))
			must(t, os.WriteFile(filepath.Join(wa, "pub", "p.txt"), []byte("two\n"), 0o666))
		})
		if _, err := a.Undo(t.Context(), 1, turnback.UndoOptions{Paths: []string{"pub/p.txt"}}); err != nil {
			t.Fatal(err)
		}
	})
	checkModes(t, "clone", b.WorkTree(), wideModes[2].want)
	turnback.SetForeignUmask(t, 0o022)
	ctx := t.Context()
	if res, err := b.Redo(ctx, 1, turnback.RedoOptions{}); err != nil {
		t.Fatalf("redo of the remote's undo: %+v %v", res, err)
	}
	checkModes(t, "redo", b.WorkTree(), map[string]fs.FileMode{"pub/p.txt": 0o644, "wide.sh": 0o700})
	// A bit the remote never gave is an edit made here.
	wide := filepath.Join(b.WorkTree(), "wide.sh")
	must(t, os.Chmod(wide, 0o700|fs.ModeSetgid))
	if res, err := b.Undo(ctx, 1, turnback.UndoOptions{}); !errors.Is(err, turnback.ErrConflict) {
		t.Fatalf("undo after a chmod g+s: %+v %v, want a conflict", res, err)
	}
	must(t, os.Chmod(wide, 0o700))
	if res, err := b.Undo(ctx, 1, turnback.UndoOptions{}); err != nil {
		t.Fatalf("undo: %+v %v", res, err)
	}
	if data, err := os.ReadFile(wide); err != nil || string(data) != "#!/bin/sh\necho wide\n" {
		t.Errorf("wide.sh after the undo: %q %v", data, err)
	}
	// What the undo did not write keeps the clone's umask.
	checkModes(t, "undo", b.WorkTree(), map[string]fs.FileMode{"wide.sh": 0o755, "pub/p.txt": 0o644, "open.txt": 0o600, "pub": fs.ModeDir | 0o700})
	statusClean(t, b, "the undo")
}
