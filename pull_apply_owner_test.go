//go:build unix

package turnback_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/turnback/turnback/internal/remote"
)

// TestApplyPulledKeepsOwners: root applies pulled turns to a folder a
// user (or root) owns. The remote's trees record another machine's
// owners (here root's, and a setuid, setgid file): the files stay their
// owner's, new ones take the owner of the directory they go in, and no
// setuid or setgid file appears.
func TestApplyPulledKeepsOwners(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	for _, user := range []uint32{4321, 0} {
		t.Run(fmt.Sprint(user), func(t *testing.T) { applyOwned(t, user) })
	}
}

func applyOwned(t *testing.T, user uint32) {
	f, wb := pullOwned(t, fmt.Sprintf("bucket-apply-owner-%d", user), user, func(wa string) {
		must(t, os.WriteFile(filepath.Join(wa, "turn.txt"), []byte("six"), 0o644))
		must(t, os.MkdirAll(filepath.Join(wa, "sub"), 0o755))
		must(t, os.WriteFile(filepath.Join(wa, "sub", "tool"), []byte("#!/bin/sh\n"), 0o755))
		must(t, os.Chmod(filepath.Join(wa, "sub", "tool"), 0o755|fs.ModeSetuid|fs.ModeSetgid))
	})
	ctx := t.Context()
	res, err := f.b.ApplyPulled(ctx, "", false)
	if err != nil {
		t.Fatalf("apply: %+v %v", res, err)
	}
	for _, c := range []struct {
		path string
		mode fs.FileMode
	}{
		{"turn.txt", 0o644},
		{"sub", fs.ModeDir | 0o755},
		{"sub/tool", 0o755},
	} {
		fi, err := os.Lstat(filepath.Join(wb, c.path))
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		if st.Uid != user || st.Gid != user || fi.Mode() != c.mode {
			t.Errorf("%s: owner %d:%d mode %v, want %d:%d %v", c.path, st.Uid, st.Gid, fi.Mode(), user, user, c.mode)
		}
	}
}

// pullOwned pushes a turn that edit makes in a new fixture's first
// folder, gives every path of the second folder to user, lets a capture
// record that, and pulls into it. It returns the fixture and that folder.
func pullOwned(t *testing.T, bucket string, user uint32, edit func(wa string)) (*pullFixture, string) {
	t.Helper()
	f := newPullFixture(t, bucket)
	ctx := t.Context()
	f.turnBy(f.a, edit)
	if _, err := remote.Push(ctx, f.a, f.c, remote.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	wb := f.b.WorkTree()
	must(t, filepath.WalkDir(wb, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(user), int(user))
	}))
	// The folder's new owner is not an edit of the pulled paths: a
	// capture records it.
	if _, err := f.b.Status(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := remote.Pull(ctx, f.b, f.c, remote.PullOptions{}); err != nil {
		t.Fatal(err)
	}
	return f, wb
}
