package cas

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRepairWaitsForTheHolder: Repair moves a damaged database aside
// only while no process holds it. Before, it moved the directory from
// under a holder, which went on writing into the copy aside.
func TestRepairWaitsForTheHolder(t *testing.T) {
	if !canLockDir {
		t.Skip("no directory lock of turnback's own here")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	dir := filepath.Join(t.TempDir(), "db")
	b := mustOpen(t, dir, BadgerOptions{})
	defer b.Close()
	if err := b.Set(ctx, Entry{Key: []byte("rec/a"), Value: []byte("a")}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, manifestName)); err != nil {
		t.Fatal(err)
	}
	res, err := Repair(ctx, dir)
	if err == nil || res != nil {
		t.Fatalf("Repair under a holder: %+v, %v; want it to wait, then give up", res, err)
	}
	if aside, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), "damaged-*")); len(aside) > 0 {
		t.Errorf("the held database was moved aside: %v", aside)
	}
}
