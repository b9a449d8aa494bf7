//go:build unix

package turnback_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas/s3/s3test"
	"github.com/turnback/turnback/internal/remote"
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
		must(t, os.MkdirAll(filepath.Join(wa, "sub"), 0o755))
		must(t, os.WriteFile(filepath.Join(wa, "sub", "tool"), []byte("#!/bin/sh\n"), 0o755))
		must(t, os.Chmod(filepath.Join(wa, "sub", "tool"), 0o755|fs.ModeSetuid|fs.ModeSetgid))
	})
	ctx := t.Context()
	if _, err := f.b.Restore(ctx, "@6", turnback.RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	checkOwned(t, wb, ownedTree{"turn.txt": {4321, 0o644}, "sub": {4321, fs.ModeDir | 0o755}, "sub/tool": {4321, 0o755}})
	if data, err := os.ReadFile(filepath.Join(wb, "turn.txt")); err != nil || string(data) != "six" {
		t.Errorf("turn.txt: %q %v, want the pulled turn's", data, err)
	}
	if st, err := f.b.Status(ctx); err != nil || len(st.Changes) != 0 {
		t.Errorf("status after the restore: %+v %v, want no change", st, err)
	}
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
	srv := s3test.Start(t)
	ctx := t.Context()
	c := srv.Client(t, "bucket-clone-owner", "")
	a, err := turnback.Open(ctx, t.TempDir(), turnback.Options{Store: t.TempDir(), Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	wa := a.WorkTree()
	must(t, os.WriteFile(filepath.Join(wa, "theirs.txt"), []byte("one"), 0o644))
	must(t, os.Chown(filepath.Join(wa, "theirs.txt"), 4321, 4321))
	for i, edit := range []func(){
		func() {
			must(t, os.WriteFile(filepath.Join(wa, "tool"), []byte("#!/bin/sh\n"), 0o755))
			must(t, os.Chmod(filepath.Join(wa, "tool"), 0o755|fs.ModeSetuid|fs.ModeSetgid))
		},
		func() { must(t, os.WriteFile(filepath.Join(wa, "theirs.txt"), []byte("two"), 0o644)) },
	} {
		if _, err := a.Snap(ctx, ""); err != nil {
			t.Fatal(i, err)
		}
		edit()
		if _, err := a.End(ctx); err != nil {
			t.Fatal(i, err)
		}
	}
	if _, err := remote.Push(ctx, a, c, remote.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	const user = 1234
	wb := filepath.Join(t.TempDir(), "b")
	must(t, os.Mkdir(wb, 0o755))
	must(t, os.Chown(wb, user, user))
	storeB := filepath.Join(t.TempDir(), "store")
	if _, err := remote.Clone(ctx, c, srv.Config("bucket-clone-owner", ""), wb, turnback.Options{Store: storeB, Session: "s"}); err != nil {
		t.Fatal(err)
	}
	checkOwned(t, wb, ownedTree{"theirs.txt": {user, 0o644}, "tool": {user, 0o755}})
	b, err := turnback.Open(ctx, wb, turnback.Options{Store: storeB, Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if st, err := b.Status(ctx); err != nil || len(st.Changes) != 0 {
		t.Fatalf("status after the clone: %+v %v, want no change", st, err)
	}
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
		must(t, os.WriteFile(filepath.Join(wa, "tool"), []byte("#!/bin/sh\n"), 0o755))
		must(t, os.Chmod(filepath.Join(wa, "tool"), 0o755|fs.ModeSetuid|fs.ModeSetgid))
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
