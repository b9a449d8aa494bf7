//go:build unix

package turnback_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas/s3"
	"github.com/turnback/turnback/cas/s3/s3test"
	"github.com/turnback/turnback/internal/remote"
)

// ownerOf is the uid and mode of path.
func ownerOf(t *testing.T, path string) (uint32, fs.FileMode) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Uid, fi.Mode()
}

// TestUndoMergePulledNoSpecialBits: root undoes, with --merge, a pulled
// turn that took a setuid, setgid bit off a script, after a local edit
// of it. The merge keeps the local owner (root's here); the remote's
// setuid bit must not come with the reverted mode, or the merged
// script becomes a setuid root file by the remote's word.
func TestUndoMergePulledNoSpecialBits(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	for _, local := range []bool{false, true} {
		t.Run(map[bool]string{false: "remote", true: "local"}[local], func(t *testing.T) { undoMergeSuid(t, local) })
	}
}

// undoMergeSuid: with local, the pulled turns leave the mode alone and
// root sets the setuid bit in the folder: the merge brings the pulled
// state's lines into the file, which then keeps no special bit either
// (as undo --force would write it).
func undoMergeSuid(t *testing.T, local bool) {
	f := newPullFixture(t, fmt.Sprintf("bucket-undo-merge-suid-%v", local))
	ctx := t.Context()
	lines := []string{"#!/bin/sh", "echo 1", "echo 2", "echo 3", "echo 4", "echo 5", "echo 6", "echo 7", ""}
	f.turnBy(f.a, func(wa string) {
		must(t, os.WriteFile(filepath.Join(wa, "tool"), []byte(strings.Join(lines, "\n")), 0o755))
		if !local {
			must(t, os.Chmod(filepath.Join(wa, "tool"), 0o755|fs.ModeSetuid|fs.ModeSetgid))
		}
	})
	f.turnBy(f.a, func(wa string) {
		l := append([]string(nil), lines...)
		l[1] = "echo one"
		must(t, os.WriteFile(filepath.Join(wa, "tool"), []byte(strings.Join(l, "\n")), 0o755))
		if !local {
			must(t, os.Chmod(filepath.Join(wa, "tool"), 0o755))
		}
	})
	f.pushPull()
	if res, err := f.b.ApplyPulled(ctx, "", false); err != nil {
		t.Fatalf("apply: %+v %v", res, err)
	}
	tool := filepath.Join(f.b.WorkTree(), "tool")
	l := append([]string(nil), lines...)
	l[1], l[7] = "echo one", "echo seven"
	must(t, os.WriteFile(tool, []byte(strings.Join(l, "\n")), 0o755))
	if local {
		must(t, os.Chmod(tool, 0o755|fs.ModeSetuid))
	}
	res, err := f.b.Undo(ctx, 1, turnback.UndoOptions{Merge: turnback.MergeClean})
	if err != nil {
		t.Fatalf("undo --merge: %+v %v", res, err)
	}
	if data, err := os.ReadFile(tool); err != nil || !strings.Contains(string(data), "echo 1\n") || !strings.Contains(string(data), "echo seven") {
		t.Fatalf("tool after the merge: %q %v", data, err)
	}
	if uid, mode := ownerOf(t, tool); mode != 0o755 {
		t.Errorf("tool after undo --merge: uid %d mode %v, want 0755", uid, mode)
	}
}

// cloneOwned: A, as root, records what setup does and pushes; B clones
// into a folder user owns. It returns B, opened.
func cloneOwned(t *testing.T, bucket string, user int, setup func(a *turnback.Repo, wa string)) *turnback.Repo {
	t.Helper()
	srv := s3test.Start(t)
	ctx := t.Context()
	c := srv.Client(t, bucket, "")
	a, err := turnback.Open(ctx, t.TempDir(), turnback.Options{Store: t.TempDir(), Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	setup(a, a.WorkTree())
	if _, err := remote.Push(ctx, a, c, remote.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	return cloneInto(t, srv, c, bucket, user)
}

// cloneInto clones session s of bucket into a new folder user owns and
// returns it, opened.
func cloneInto(t *testing.T, srv *s3test.Server, c *s3.Client, bucket string, user int) *turnback.Repo {
	t.Helper()
	ctx := t.Context()
	wb := filepath.Join(t.TempDir(), "b")
	must(t, os.Mkdir(wb, 0o755))
	must(t, os.Chown(wb, user, user))
	storeB := filepath.Join(t.TempDir(), "store")
	if _, err := remote.Clone(ctx, c, srv.Config(bucket, ""), wb, turnback.Options{Store: storeB, Session: "s"}); err != nil {
		t.Fatal(err)
	}
	b, err := turnback.Open(ctx, wb, turnback.Options{Store: storeB, Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// statusClean fails t unless r's status shows no change.
func statusClean(t *testing.T, r *turnback.Repo, after string) {
	t.Helper()
	st, err := r.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range st.Changes {
		t.Errorf("status after %s: %s %s (%+v -> %+v)", after, c.What, c.Path, *c.Old, *c.New)
	}
}

// writeSetuid writes a setuid, setgid script at path.
func writeSetuid(t *testing.T, path, data string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(path), 0o755))
	must(t, os.WriteFile(path, []byte(data), 0o755))
	must(t, os.Chmod(path, 0o755|fs.ModeSetuid|fs.ModeSetgid))
}

// suidTurn records a turn of a that writes note.txt and a root-owned
// setuid, setgid tool.
func suidTurn(t *testing.T, a *turnback.Repo, wa string) {
	t.Helper()
	ctx := t.Context()
	if _, err := a.Snap(ctx, ""); err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(filepath.Join(wa, "note.txt"), []byte("note"), 0o644))
	writeSetuid(t, filepath.Join(wa, "tool"), "#!/bin/sh\n")
	if _, err := a.End(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestCloneRedoRemoteUndoKeepsOwners: the remote's session ends in an
// undo (whole, or partial: --path tool), so the clone's redo stack and
// its goal come from the remote. Root's redo in the clone gives tool
// the folder's owner and no setuid or setgid bit.
func TestCloneRedoRemoteUndoKeepsOwners(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	const user = 1234
	for _, paths := range [][]string{nil, {"tool"}} {
		t.Run(strings.Join(append([]string{"undo"}, paths...), " "), func(t *testing.T) {
			b := cloneOwned(t, "bucket-redo-remote-"+strings.Join(append([]string{"undo"}, paths...), "-"), user, func(a *turnback.Repo, wa string) {
				suidTurn(t, a, wa)
				if _, err := a.Undo(t.Context(), 1, turnback.UndoOptions{Paths: paths}); err != nil {
					t.Fatal(err)
				}
			})
			ctx := t.Context()
			if _, err := os.Lstat(filepath.Join(b.WorkTree(), "tool")); !os.IsNotExist(err) {
				t.Fatalf("tool after the clone: %v, want none", err)
			}
			if res, err := b.Redo(ctx, 1, turnback.RedoOptions{}); err != nil {
				t.Fatalf("redo: %+v %v", res, err)
			}
			checkOwned(t, b.WorkTree(), ownedTree{"tool": {user, 0o755}, "note.txt": {user, 0o644}})
			if st, err := b.Status(ctx); err != nil || len(st.Changes) != 0 {
				t.Errorf("status after the redo: %+v %v, want no change", st, err)
			}
		})
	}
}

// TestCloneUndoRedoNoModeNoise: root clones a session whose last turn
// wrote a setuid, setgid tool, and turn 1 of which changed it back to
// 0755 (tool is 06755 in turn 2's before-state). Undo and redo of the
// cloned turns leave the folder as status then sees it: no mode or
// owner change the folder did not make.
func TestCloneUndoRedoNoModeNoise(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	const user = 1234
	b := cloneOwned(t, "bucket-clone-noise", user, func(a *turnback.Repo, wa string) {
		suidTurn(t, a, wa)
		ctx := t.Context()
		if _, err := a.Snap(ctx, ""); err != nil {
			t.Fatal(err)
		}
		must(t, os.WriteFile(filepath.Join(wa, "tool"), []byte("#!/bin/sh\necho\n"), 0o755))
		must(t, os.Chmod(filepath.Join(wa, "tool"), 0o755))
		if _, err := a.End(ctx); err != nil {
			t.Fatal(err)
		}
	})
	ctx := t.Context()
	for _, step := range []struct {
		name string
		do   func() (*turnback.RestoreResult, error)
	}{
		{"undo", func() (*turnback.RestoreResult, error) { return b.Undo(ctx, 1, turnback.UndoOptions{}) }},
		{"redo", func() (*turnback.RestoreResult, error) { return b.Redo(ctx, 1, turnback.RedoOptions{}) }},
		{"undo --path tool", func() (*turnback.RestoreResult, error) {
			return b.Undo(ctx, 1, turnback.UndoOptions{Paths: []string{"tool"}})
		}},
		{"redo of the partial undo", func() (*turnback.RestoreResult, error) { return b.Redo(ctx, 1, turnback.RedoOptions{}) }},
		{"undo 2", func() (*turnback.RestoreResult, error) { return b.Undo(ctx, 2, turnback.UndoOptions{}) }},
		{"redo 2", func() (*turnback.RestoreResult, error) { return b.Redo(ctx, 2, turnback.RedoOptions{}) }},
	} {
		if res, err := step.do(); err != nil {
			t.Fatalf("%s: %+v %v", step.name, res, err)
		}
		if fi, err := os.Lstat(filepath.Join(b.WorkTree(), "tool")); err == nil {
			if uid, mode := ownerOf(t, filepath.Join(b.WorkTree(), "tool")); uid != user || mode != 0o755 {
				t.Errorf("%s: tool is %d's, %v (%v)", step.name, uid, mode, fi.Mode())
			}
		}
		st, err := b.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range st.Changes {
			t.Errorf("status after %s: %s %s (%+v -> %+v)", step.name, c.What, c.Path, *c.Old, *c.New)
		}
	}
}

// TestRecoverPulledUndoKeepsOwners: root's undo of a cloned turn stops
// after its commit point (a fault placing tool); the next Open
// finishes it from the journal. tool is the folder's owner's, without
// the remote's setuid, setgid bits, and status shows no change.
func TestRecoverPulledUndoKeepsOwners(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	const user = 1234
	b := cloneOwned(t, "bucket-recover-owner", user, func(a *turnback.Repo, wa string) {
		suidTurn(t, a, wa)
		ctx := t.Context()
		if _, err := a.Snap(ctx, ""); err != nil {
			t.Fatal(err)
		}
		must(t, os.WriteFile(filepath.Join(wa, "tool"), []byte("#!/bin/sh\necho\n"), 0o755))
		must(t, os.Chmod(filepath.Join(wa, "tool"), 0o755))
		must(t, os.WriteFile(filepath.Join(wa, "note.txt"), []byte("note 2"), 0o644))
		if _, err := a.End(ctx); err != nil {
			t.Fatal(err)
		}
	})
	ctx := t.Context()
	b.SetRestoreHook(func(step string) error {
		if step == "place tool" {
			return errors.New("injected fault")
		}
		return nil
	})
	if _, err := b.Undo(ctx, 1, turnback.UndoOptions{}); !errors.Is(err, turnback.ErrUnfinished) {
		t.Fatalf("undo with a fault at tool: %v, want ErrUnfinished", err)
	}
	wb, store := b.WorkTree(), b.StoreDir()
	b.Close()
	b, err := turnback.Open(ctx, wb, turnback.Options{Store: store, Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	checkOwned(t, wb, ownedTree{"tool": {user, 0o755}, "note.txt": {user, 0o644}})
	if data, err := os.ReadFile(filepath.Join(wb, "tool")); err != nil || string(data) != "#!/bin/sh\n" {
		t.Errorf("tool: %q %v, want turn 1's", data, err)
	}
	statusClean(t, b, "the recovery")
}

// TestRecoverPulledApplyKeepsOwners: root's pull --apply stops after
// its commit point (a fault placing sub/tool); the next Open finishes
// it. The files are the folder owner's, no setuid or setgid bit, and
// status shows no change the folder did not make.
func TestRecoverPulledApplyKeepsOwners(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	const user = 4321
	f, wb := pullOwned(t, "bucket-recover-apply-owner", user, func(wa string) {
		must(t, os.WriteFile(filepath.Join(wa, "turn.txt"), []byte("six"), 0o644))
		writeSetuid(t, filepath.Join(wa, "sub", "tool"), "#!/bin/sh\n")
	})
	ctx := t.Context()
	f.b.SetRestoreHook(func(step string) error {
		if step == "place sub/tool" {
			return errors.New("injected fault")
		}
		return nil
	})
	if _, err := f.b.ApplyPulled(ctx, "", false); !errors.Is(err, turnback.ErrUnfinished) {
		t.Fatalf("apply with a fault at sub/tool: %v, want ErrUnfinished", err)
	}
	store := f.b.StoreDir()
	f.b.Close()
	b, err := turnback.Open(ctx, wb, turnback.Options{Store: store, Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	checkOwned(t, wb, ownedTree{"turn.txt": {user, 0o644}, "sub": {user, fs.ModeDir | 0o755}, "sub/tool": {user, 0o755}})
	statusClean(t, b, "the recovery")
}

// TestRecoverRestorePulledLastKeepsOwners: as a clone's restore, root's
// restore of the pulled session's last state stops after its commit
// point; the next Open finishes it, and status is clean.
func TestRecoverRestorePulledLastKeepsOwners(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	const user = 4321
	f, wb := pullOwned(t, "bucket-recover-restore-owner", user, func(wa string) {
		writeSetuid(t, filepath.Join(wa, "tool"), "#!/bin/sh\n")
	})
	ctx := t.Context()
	f.b.SetRestoreHook(func(step string) error {
		if step == "place tool" {
			return errors.New("injected fault")
		}
		return nil
	})
	if _, err := f.b.Restore(ctx, "@6", turnback.RestoreOptions{}); !errors.Is(err, turnback.ErrUnfinished) {
		t.Fatalf("restore with a fault at tool: %v, want ErrUnfinished", err)
	}
	store := f.b.StoreDir()
	f.b.Close()
	b, err := turnback.Open(ctx, wb, turnback.Options{Store: store, Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	checkOwned(t, wb, ownedTree{"turn.txt": {user, 0o644}, "tool": {user, 0o755}})
	statusClean(t, b, "the recovery")
}

// TestRestorePulledByIDKeepsOwners: root restores, by hex id, states a
// clone brought: the remote's undo checkpoint (tool root's, 06755 in
// it), and turn 1's after-state after a gc. tool is the folder owner's
// and 0755 each time.
func TestRestorePulledByIDKeepsOwners(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	const user = 1234
	var cp, after string
	b := cloneOwned(t, "bucket-restore-byid", user, func(a *turnback.Repo, wa string) {
		suidTurn(t, a, wa)
		ctx := t.Context()
		turns, _, err := a.Turns(ctx)
		if err != nil || len(turns) != 1 {
			t.Fatalf("turns: %v %v", turns, err)
		}
		after = turns[0].After.String()
		res, err := a.Undo(ctx, 1, turnback.UndoOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cp = res.Checkpoint.String()
	})
	ctx := t.Context()
	for _, step := range []struct{ name, id string }{{"checkpoint", cp}, {"after gc", after}} {
		if step.name == "after gc" {
			must(t, os.Remove(filepath.Join(b.WorkTree(), "tool")))
			if _, err := b.GC(ctx, turnback.GCOptions{Keep: 1, OlderThan: -1}); err != nil {
				t.Fatal(err)
			}
		}
		if res, err := b.Restore(ctx, step.id[:12], turnback.RestoreOptions{}); err != nil {
			t.Fatalf("%s: restore %s: %+v %v", step.name, step.id, res, err)
		}
		checkOwned(t, b.WorkTree(), ownedTree{"tool": {user, 0o755}, "note.txt": {user, 0o644}})
	}
}

// TestCloneHostileRecordsKeepOwners: a remote whose snapshot records
// say "foreign": false (in several spellings) is another machine's
// all the same; and a clone pushed on and cloned again (a third store)
// still is. Root's clone and its redo leave tool the user's, 0755.
func TestCloneHostileRecordsKeepOwners(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	const user = 1234
	b := cloneOwned(t, "bucket-hostile-records", user, func(a *turnback.Repo, wa string) {
		suidTurn(t, a, wa)
		if _, err := a.Undo(t.Context(), 1, turnback.UndoOptions{Paths: []string{"tool"}}); err != nil {
			t.Fatal(err)
		}
		turnback.SetSnapRecords(t, a, `{"v":1,"kind":"snap","foreign":false,"Foreign":false,"FOREIGN":false,"foreign":false}`)
	})
	ctx := t.Context()
	if _, err := b.Redo(ctx, 1, turnback.RedoOptions{}); err != nil {
		t.Fatal(err)
	}
	checkOwned(t, b.WorkTree(), ownedTree{"tool": {user, 0o755}, "note.txt": {user, 0o644}})
	// B's session, undone again, goes on to a third store.
	if _, err := b.Undo(ctx, 1, turnback.UndoOptions{Paths: []string{"tool"}}); err != nil {
		t.Fatal(err)
	}
	srv := s3test.Start(t)
	cl := srv.Client(t, "bucket-hostile-records-3", "")
	if _, err := remote.Push(ctx, b, cl, remote.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	const user3 = 4321
	c := cloneInto(t, srv, cl, "bucket-hostile-records-3", user3)
	if _, err := c.Redo(ctx, 1, turnback.RedoOptions{}); err != nil {
		t.Fatal(err)
	}
	checkOwned(t, c.WorkTree(), ownedTree{"tool": {user3, 0o755}, "note.txt": {user3, 0o644}})
	statusClean(t, c, "the redo in the third store")
}
