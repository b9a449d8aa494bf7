//go:build linux

package engine

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGit runs the shadow git engine on a tiny tree: cold capture, a
// turn, its undo.
func TestGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	ctx := t.Context()
	tree := t.TempDir()
	os.WriteFile(filepath.Join(tree, "a"), []byte("one\n"), 0o644)
	e := NewGit([]string{"node_modules"})
	if err := e.Setup("t", tree, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Undo(ctx, 0); err == nil {
		t.Error("undo before any before-state: no error")
	}
	for _, ph := range []string{PhaseCold, PhaseBefore} {
		if _, err := e.Capture(ctx, ph, 0); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(tree, "a"), []byte("two\n"), 0o644)
	os.WriteFile(filepath.Join(tree, "b"), []byte("new\n"), 0o644)
	if _, err := e.Capture(ctx, PhaseTurn, 0); err != nil {
		t.Fatal(err)
	}
	if n := e.FileCount(ctx); n != 2 {
		t.Errorf("FileCount = %d, want 2", n)
	}
	if _, err := e.Undo(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(tree, "a")); string(data) != "one\n" {
		t.Errorf("after undo a = %q", data)
	}
	if ex, _ := os.ReadFile(filepath.Join(e.StoreDir(), "info", "exclude")); string(ex) != "node_modules/\n" {
		t.Errorf("info/exclude = %q", ex)
	}
}
