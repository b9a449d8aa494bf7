package turnback_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas/s3/s3test"
	"github.com/turnback/turnback/internal/remote"
)

// TestCloneOfPartialUndoWhole: a session whose last state is a partial
// undo's result (it vouches, on the machine that made it, for the path
// undone alone) clones into the whole folder: a pulled state is whole
// here (internal/exchange's markForeign). Before, the clone's restore
// put back the undone path alone and left out note.txt.
func TestCloneOfPartialUndoWhole(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	ctx := t.Context()
	c := srv.Client(t, "bucket-partial-clone", "")
	a, err := turnback.Open(ctx, t.TempDir(), turnback.Options{Store: t.TempDir(), Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	wa := a.WorkTree()
	for i := range 20 {
		must(t, os.WriteFile(filepath.Join(wa, fmt.Sprintf("f%d.txt", i)), []byte("f"), 0o644))
	}
	if _, err := a.Snap(ctx, ""); err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(filepath.Join(wa, "note.txt"), []byte("note"), 0o644))
	must(t, os.WriteFile(filepath.Join(wa, "tool"), []byte("tool"), 0o644))
	if _, err := a.End(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Undo(ctx, 1, turnback.UndoOptions{Paths: []string{"tool"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := remote.Push(ctx, a, c, remote.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	wb := filepath.Join(t.TempDir(), "b")
	must(t, os.Mkdir(wb, 0o755))
	if _, err := remote.Clone(ctx, c, srv.Config("bucket-partial-clone", ""), wb, turnback.Options{Store: t.TempDir(), Session: "s"}); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(wb, "note.txt")); err != nil || string(data) != "note" {
		t.Errorf("note.txt in the clone: %q %v", data, err)
	}
	if _, err := os.Lstat(filepath.Join(wb, "tool")); !os.IsNotExist(err) {
		t.Errorf("tool in the clone: %v, want none (undone)", err)
	}
	if _, err := os.Lstat(filepath.Join(wb, "f7.txt")); err != nil {
		t.Errorf("f7.txt in the clone: %v", err)
	}
}
