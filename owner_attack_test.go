//go:build unix

package turnback_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/turnback/turnback"
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
	f := newPullFixture(t, "bucket-undo-merge-suid")
	ctx := t.Context()
	lines := []string{"#!/bin/sh", "echo 1", "echo 2", "echo 3", "echo 4", "echo 5", "echo 6", "echo 7", ""}
	f.turnBy(f.a, func(wa string) {
		must(t, os.WriteFile(filepath.Join(wa, "tool"), []byte(strings.Join(lines, "\n")), 0o755))
		must(t, os.Chmod(filepath.Join(wa, "tool"), 0o755|fs.ModeSetuid|fs.ModeSetgid))
	})
	f.turnBy(f.a, func(wa string) {
		l := append([]string(nil), lines...)
		l[1] = "echo one"
		must(t, os.WriteFile(filepath.Join(wa, "tool"), []byte(strings.Join(l, "\n")), 0o755))
		must(t, os.Chmod(filepath.Join(wa, "tool"), 0o755))
	})
	f.pushPull()
	if res, err := f.b.ApplyPulled(ctx, "", false); err != nil {
		t.Fatalf("apply: %+v %v", res, err)
	}
	tool := filepath.Join(f.b.WorkTree(), "tool")
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
	if uid, mode := ownerOf(t, tool); mode != 0o755 {
		t.Errorf("tool after undo --merge: uid %d mode %v, want 0755", uid, mode)
	}
}
