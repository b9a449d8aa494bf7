package turnback_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnback/turnback"
)

// benchTree is a folder of 1,000 files in 20 directories with a store.
func benchTree(b *testing.B) (*turnback.Repo, string) {
	b.Helper()
	dir := b.TempDir()
	for i := range 1000 {
		p := filepath.Join(dir, fmt.Sprintf("d%02d", i%20), fmt.Sprintf("f%04d", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("file %d\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.log\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	r, err := turnback.Open(context.Background(), dir, turnback.Options{Store: b.TempDir(), LockWait: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.Close() })
	return r, dir
}

// benchEdit rewrites 50 of the files with content tagged n.
func benchEdit(b *testing.B, dir string, n int) {
	b.Helper()
	for i := 0; i < 1000; i += 20 {
		p := filepath.Join(dir, fmt.Sprintf("d%02d", i%20), fmt.Sprintf("f%04d", i))
		if err := os.WriteFile(p, []byte(fmt.Sprintf("file %d edit %d\n", i, n)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRestoreSameRules: restore back and forth between two states
// that differ in 50 files and have the same ignore rules (the fast
// path: no capture after the files are in place).
func BenchmarkRestoreSameRules(b *testing.B) {
	ctx := context.Background()
	r, dir := benchTree(b)
	s1, err := r.Snap(ctx, "")
	if err != nil {
		b.Fatal(err)
	}
	benchEdit(b, dir, 1)
	s2, err := r.Snap(ctx, "")
	if err != nil {
		b.Fatal(err)
	}
	ids := []string{s1.Snapshot.String(), s2.Snapshot.String()}
	i := 0
	for b.Loop() {
		if _, err := r.Restore(ctx, ids[i%2], turnback.RestoreOptions{}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkUndoSameRules: a turn that edits 50 files, and its undo
// (only the undo is timed).
func BenchmarkUndoSameRules(b *testing.B) {
	ctx := context.Background()
	r, dir := benchTree(b)
	n := 0
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		if _, err := r.Snap(ctx, ""); err != nil {
			b.Fatal(err)
		}
		n++
		benchEdit(b, dir, n)
		if _, err := r.End(ctx); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := r.Undo(ctx, 1, turnback.UndoOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRestoreRulesChange: as BenchmarkRestoreSameRules, but the
// two states' .gitignore differ too (the restore then captures the
// folder again for its result).
func BenchmarkRestoreRulesChange(b *testing.B) {
	ctx := context.Background()
	r, dir := benchTree(b)
	s1, err := r.Snap(ctx, "")
	if err != nil {
		b.Fatal(err)
	}
	benchEdit(b, dir, 1)
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.log\n*.tmp\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	s2, err := r.Snap(ctx, "")
	if err != nil {
		b.Fatal(err)
	}
	ids := []string{s1.Snapshot.String(), s2.Snapshot.String()}
	i := 0
	for b.Loop() {
		if _, err := r.Restore(ctx, ids[i%2], turnback.RestoreOptions{}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
