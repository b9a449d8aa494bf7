//go:build unix

package turnback_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/remote"
)

// TestApplyPulledOwnersLocal: root applies a pulled turn to a folder a
// user owns. The pulled states recorded the remote machine's owners
// (root's); after the apply status is clean (it listed every applied
// path as an owner change) and undo works and keeps the user's owner
// (it was a conflict: "owner changed since (4321:4321, was 0:0)"). An
// owner change made here after the apply is still reported.
func TestApplyPulledOwnersLocal(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	const user = 4321
	f, wb := pullOwned(t, "bucket-apply-owner-local", user, func(wa string) {
		must(t, os.WriteFile(filepath.Join(wa, "turn.txt"), []byte("six"), 0o644))
		must(t, os.MkdirAll(filepath.Join(wa, "sub"), 0o755))
		must(t, os.WriteFile(filepath.Join(wa, "sub", "new.txt"), []byte("new\n"), 0o644))
	})
	ctx := t.Context()
	if res, err := f.b.ApplyPulled(ctx, "", false); err != nil {
		t.Fatalf("apply: %+v %v", res, err)
	}
	if st, err := f.b.Status(ctx); err != nil || len(st.Changes) != 0 {
		t.Fatalf("status after the apply: %+v %v", st, err)
	}
	must(t, os.Lchown(filepath.Join(wb, "sub", "new.txt"), user+1, user+1))
	st, err := f.b.Status(ctx)
	if err != nil || len(st.Changes) != 1 || st.Changes[0].Path != "sub/new.txt" {
		t.Fatalf("status after a chown: %+v %v", st, err)
	}
	must(t, os.Lchown(filepath.Join(wb, "sub", "new.txt"), user, user))
	if _, err := f.b.Undo(ctx, 1, turnback.UndoOptions{}); err != nil {
		t.Fatalf("undo after the apply: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(wb, "turn.txt"))
	if err != nil || string(data) != "turn turn turn turn turn " {
		t.Fatalf("undo: turn.txt %q %v", data, err)
	}
	fi, err := os.Lstat(filepath.Join(wb, "turn.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != user || st.Gid != user {
		t.Errorf("undo gave turn.txt to %d:%d, want %d:%d", st.Uid, st.Gid, user, user)
	}
	if _, err := os.Lstat(filepath.Join(wb, "sub")); !os.IsNotExist(err) {
		t.Errorf("undo left sub: %v", err)
	}
	if st, err := f.b.Status(ctx); err != nil || len(st.Changes) != 0 {
		t.Fatalf("status after the undo: %+v %v", st, err)
	}
	if _, err := f.b.Redo(ctx, 1, turnback.RedoOptions{}); err != nil {
		t.Fatalf("redo: %v", err)
	}
	for _, p := range []string{"turn.txt", "sub", "sub/new.txt"} {
		fi, err := os.Lstat(filepath.Join(wb, p))
		if err != nil {
			t.Fatal(err)
		}
		if st := fi.Sys().(*syscall.Stat_t); st.Uid != user || st.Gid != user {
			t.Errorf("redo gave %s to %d:%d, want %d:%d", p, st.Uid, st.Gid, user, user)
		}
	}
	// The turn records are still the remote's: a later pull goes on.
	f.turn(f.a, "turn.txt", "seven")
	if _, err := remote.Push(ctx, f.a, f.c, remote.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := remote.Pull(ctx, f.b, f.c, remote.PullOptions{}); err != nil {
		t.Fatalf("pull after the apply: %v", err)
	}
}
