package stateignore

import (
	"context"
	"testing"

	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/manifest"
)

// TestSkip: Skip says why a state ignores a path, in the words of a
// capture's list: the ignore file's line, a built-in name, a directory
// the record lists as generated, or one a legacy state skipped by name.
// A path the state does not ignore gets nil.
func TestSkip(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	loader := manifest.NewStoreLoader(s)
	root := stored(t, s, map[string]string{".gitignore": "a.txt\n*.log\n", "src/main.c": "c"})
	known := &model.SkipInfo{Generated: []string{"gen"}}
	tests := []struct {
		name       string
		skip       *model.SkipInfo
		rel        string
		isDir      bool
		rule, why  string
		file       string
		line       int
		notIgnored bool
	}{
		{"pattern, absent", known, "a.txt", false, "file", "ignored by .gitignore line 1: a.txt", ".gitignore", 1, false},
		{"pattern", known, "src/x.log", false, "file", "ignored by .gitignore line 2: *.log", ".gitignore", 2, false},
		{"built-in name", known, "node_modules", true, "name", "built-in name (dependencies or a cache)", "", 0, false},
		{"generated", known, "gen", true, "evidence", "generated", "", 0, false},
		{"inside generated", known, "gen/x.c", false, "", "inside an ignored directory", "", 0, false},
		{"legacy name", nil, "build", true, "name", "built-in name, in a capture before the evidence rules", "", 0, false},
		{"held", known, "src/main.c", false, "", "", "", 0, true},
		{"absent", known, "gone.c", false, "", "", "", 0, true},
		{"not generated", known, "build", true, "", "", "", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := New(loader, s, root, tt.skip).Skip(ctx, tt.rel, tt.isDir)
			if err != nil {
				t.Fatal(err)
			}
			if tt.notIgnored {
				if got != nil {
					t.Fatalf("Skip(%q) = %+v, want nil", tt.rel, got)
				}
				return
			}
			if got == nil || got.Path != tt.rel || got.Dir != tt.isDir || got.Rule != tt.rule || got.Reason != tt.why || got.File != tt.file || got.Line != tt.line {
				t.Fatalf("Skip(%q) = %+v, want rule %q reason %q file %q line %d", tt.rel, got, tt.rule, tt.why, tt.file, tt.line)
			}
		})
	}
}
