package turnback

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
)

// TestUndoLegacyNamedDirKept: a snapshot recorded before the evidence
// rules (no "rules" in its record) skipped build/ by its name whatever
// it held. A turn from such a state to one that captures build/ (the
// first capture after an upgrade) does not make its undo delete build/:
// absent from the old tree, it was skipped, not absent. A directory of
// another name is still deleted as the turn's creation.
func TestUndoLegacyNamedDirKept(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	wt := filepath.Join(dir, "work")
	store := filepath.Join(dir, "store")
	write := func(rel, data string) {
		t.Helper()
		p := filepath.Join(wt, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main.go", "package main\n")
	open := func() *Repo {
		t.Helper()
		r, err := Open(ctx, wt, Options{Store: store, Local: true})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := open()
	snap, err := r.Snap(ctx, "before the upgrade")
	if err != nil {
		t.Fatal(err)
	}
	// The record as a release before the evidence rules wrote it.
	rec := model.SnapshotRecord{Version: model.MetaVersion, Kind: model.KindSnap, Files: 1, Bytes: 13}
	if err := r.commit(ctx, []cas.Entry{{Key: model.SnapKey(snap.Snapshot), Value: model.EncodeJSON(rec)}}, nil); err != nil {
		t.Fatal(err)
	}
	r.Close()
	write("build/run.sh", "#!/bin/sh\n")
	write("tools/gen.sh", "#!/bin/sh\n")
	write("main.go", "package main // edited\n")
	r = open()
	defer r.Close()
	if _, err := r.Undo(ctx, 1, UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]string{"build/run.sh": "#!/bin/sh\n", "tools/gen.sh": "", "main.go": "package main\n"} {
		data, err := os.ReadFile(filepath.Join(wt, filepath.FromSlash(rel)))
		switch {
		case want == "" && !os.IsNotExist(err):
			t.Errorf("%s: %v, want it deleted", rel, err)
		case want != "" && string(data) != want:
			t.Errorf("%s: %q (%v), want %q", rel, data, err, want)
		}
	}
}
