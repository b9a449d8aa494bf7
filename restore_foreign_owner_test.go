//go:build unix

package turnback_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/turnback/turnback"
)

// ownedTree is a wanted owner and mode of each path of a folder.
type ownedTree map[string]struct {
	uid  uint32
	mode fs.FileMode
}

func checkOwned(t *testing.T, dir string, want ownedTree) {
	t.Helper()
	for p, w := range want {
		fi, err := os.Lstat(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		if st.Uid != w.uid || st.Gid != w.uid || fi.Mode() != w.mode {
			t.Errorf("%s: owner %d:%d mode %v, want %d:%d %v", p, st.Uid, st.Gid, fi.Mode(), w.uid, w.uid, w.mode)
		}
	}
}

// TestRestorePulledKeepsOwners: the command a pull suggests, restore
// @N, run as root, of a state another machine captured. Its trees
// record that machine's owners (root's here, with a setuid, setgid
// file): as for pull --apply, the files stay their owner's, new ones
// take their directory's owner and no setuid or setgid file appears.
func TestRestorePulledKeepsOwners(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	f, wb := pullOwned(t, "bucket-restore-owner", 4321, func(wa string) {
		must(t, os.WriteFile(filepath.Join(wa, "turn.txt"), []byte("six"), 0o644))
		writeSetuid(t, filepath.Join(wa, "sub", "tool"), "#!/bin/sh\n")
	})
	ctx := t.Context()
	if _, err := f.b.Restore(ctx, "@6", turnback.RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	checkOwned(t, wb, ownedTree{"turn.txt": {4321, 0o644}, "sub": {4321, fs.ModeDir | 0o755}, "sub/tool": {4321, 0o755}})
	if data, err := os.ReadFile(filepath.Join(wb, "turn.txt")); err != nil || string(data) != "six" {
		t.Errorf("turn.txt: %q %v, want the pulled turn's", data, err)
	}
	statusClean(t, f.b, "the restore")
}

// TestCloneAsRootKeepsOwners: root clones a remote whose trees record
// another machine's owners (a root-owned setuid, setgid tool, a file
// of uid 4321) into an empty folder a user owns. Everything becomes the
// user's, no setuid or setgid file appears, status shows nothing, and
// undo and redo of the cloned turns keep the user's owners.
func TestCloneAsRootKeepsOwners(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	const user = 1234
	b := cloneOwned(t, "bucket-clone-owner", user, func(a *turnback.Repo, wa string) {
		must(t, os.WriteFile(filepath.Join(wa, "theirs.txt"), []byte("one"), 0o644))
		must(t, os.Chown(filepath.Join(wa, "theirs.txt"), 4321, 4321))
		turnOf(t, a, func() { writeSetuid(t, filepath.Join(wa, "tool"), "#!/bin/sh\n") })
		turnOf(t, a, func() { must(t, os.WriteFile(filepath.Join(wa, "theirs.txt"), []byte("two"), 0o644)) })
	})
	ctx, wb := t.Context(), b.WorkTree()
	checkOwned(t, wb, ownedTree{"theirs.txt": {user, 0o644}, "tool": {user, 0o755}})
	statusClean(t, b, "the clone")
	if _, err := b.Undo(ctx, 2, turnback.UndoOptions{}); err != nil {
		t.Fatalf("undo: %v", err)
	}
	checkOwned(t, wb, ownedTree{"theirs.txt": {user, 0o644}})
	if _, err := os.Lstat(filepath.Join(wb, "tool")); !os.IsNotExist(err) {
		t.Errorf("tool after undo: %v, want it gone", err)
	}
	if _, err := b.Redo(ctx, 2, turnback.RedoOptions{}); err != nil {
		t.Fatalf("redo: %v", err)
	}
	checkOwned(t, wb, ownedTree{"theirs.txt": {user, 0o644}, "tool": {user, 0o755}})
	if data, err := os.ReadFile(filepath.Join(wb, "theirs.txt")); err != nil || string(data) != "two" {
		t.Errorf("theirs.txt: %q %v", data, err)
	}
}

// TestRestorePulledNoRecordsKeepsOwners: as TestRestorePulledKeepsOwners,
// from a remote that sent no snapshot records: the states it brought
// are still another machine's.
func TestRestorePulledNoRecordsKeepsOwners(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	f := newPullFixture(t, "bucket-restore-norecords")
	ctx := t.Context()
	f.turnBy(f.a, func(wa string) {
		writeSetuid(t, filepath.Join(wa, "tool"), "#!/bin/sh\n")
	})
	turnback.DropSnapRecords(t, f.a)
	f.pushPull()
	if _, err := f.b.Restore(ctx, "@6", turnback.RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	uid := uint32(os.Getuid())
	fi, err := os.Stat(f.b.WorkTree())
	if err == nil {
		uid = fi.Sys().(*syscall.Stat_t).Uid
	}
	checkOwned(t, f.b.WorkTree(), ownedTree{"tool": {uid, 0o755}})
}

// turnOf records a turn of r in which edit runs.
func turnOf(t *testing.T, r *turnback.Repo, edit func()) {
	t.Helper()
	if _, err := r.Snap(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	edit()
	if _, err := r.End(t.Context()); err != nil {
		t.Fatal(err)
	}
}
