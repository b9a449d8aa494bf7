package stateignore

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/restore"
	"github.com/turnback/turnback/walker"
)

// stored captures a folder holding files (path: content) into s and
// returns its root.
func stored(t *testing.T, s *cas.Store, files map[string]string) cas.Hash {
	t.Helper()
	dir := t.TempDir()
	for p, data := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	res, err := walker.Capture(context.Background(), root, s, walker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Root
}

func newStore(t *testing.T) *cas.Store {
	t.Helper()
	s, err := cas.NewStore(cas.NewMemory())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestIgnored(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	loader := manifest.NewStoreLoader(s)
	root := stored(t, s, map[string]string{
		".gitignore": "*.log\nlogs/\n", "a.txt": "a", "target/f": "f", "sub/.gitignore": "!keep.log\n",
	})
	known := &model.SkipInfo{Generated: []string{"gen"}}
	tests := []struct {
		name  string
		skip  *model.SkipInfo
		rel   string
		isDir bool
		want  bool
	}{
		{"by the stored rules", known, "x.log", false, true},
		{"not matched", known, "a.txt", false, false},
		{"inside an ignored directory", known, "logs/a.txt", false, true},
		{"un-ignored below", known, "sub/keep.log", false, false},
		{"generated", known, "gen", true, true},
		{"not generated", known, "other", true, false},
		{"legacy name in a known state", known, "build", true, false},
		{"legacy name absent, skips unknown", nil, "build", true, true},
		{"legacy name present, skips unknown", nil, "target", true, false},
		{"generated needs a record", nil, "gen", true, false},
	}
	for _, tt := range tests {
		got, err := New(loader, s, root, tt.skip).Ignored(ctx, tt.rel, tt.isDir)
		if err != nil || got != tt.want {
			t.Errorf("%s: Ignored(%q) = %v, %v; want %v", tt.name, tt.rel, got, err, tt.want)
		}
	}
}

func TestDrop(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	loader := manifest.NewStoreLoader(s)
	from := stored(t, s, map[string]string{".gitignore": "*.log\n"})
	to := stored(t, s, map[string]string{".gitignore": "*.tmp\n"})
	file := &manifest.Entry{Kind: manifest.KindFile}
	actions := []restore.Action{{Path: "a.log", New: file}, {Path: "b.tmp", Old: file}, {Path: "c.txt", Old: file, New: file}}
	res := &model.RestoreResult{Conflicts: []model.PathNote{{Path: "a.log", Reason: "edited"}, {Path: "c.txt", Reason: "edited"}}}
	keep, notes, err := Drop(ctx, New(loader, s, from, nil), New(loader, s, to, nil), actions, res, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(keep, actions[2:]) {
		t.Errorf("kept %+v", keep)
	}
	wantNotes := []model.PathNote{
		{Path: "a.log", Reason: "ignored in the current state; left as is", Kept: true},
		{Path: "b.tmp", Reason: "ignored in the state restored to; left as is", Kept: true},
	}
	if !reflect.DeepEqual(notes, wantNotes) {
		t.Errorf("notes %+v, want %+v", notes, wantNotes)
	}
	if want := []model.PathNote{{Path: "c.txt", Reason: "edited"}}; !reflect.DeepEqual(res.Conflicts, want) {
		t.Errorf("conflicts %+v, want %+v", res.Conflicts, want)
	}
}
