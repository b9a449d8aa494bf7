package turnback_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/remote"
	"github.com/turnback/turnback/internal/testtier"
)

// TestApplyPulledHostileDotGit: a remote whose pulled turn ends in a
// tree holding .git/config (or another spelling of git's directory):
// pull --apply never writes it, with or without --force, and the
// folder's own .git/config stays as it was.
func TestApplyPulledHostileDotGit(t *testing.T) {
	testtier.Slow(t)
	for _, name := range []string{".git", ".GIT", "git~1"} {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			f := newPullFixture(t, "bucket-hostile-"+map[string]string{".git": "dot", ".GIT": "upper", "git~1": "short"}[name])
			if _, err := f.a.Snap(ctx, ""); err != nil {
				t.Fatal(err)
			}
			must(t, os.WriteFile(filepath.Join(f.a.WorkTree(), "cfg.txt"), []byte("[core]\n\tfsmonitor = touch pwned\n"), 0o644))
			if _, err := f.a.End(ctx); err != nil {
				t.Fatal(err)
			}
			turnback.HostileLast(t, f.a, name)
			if _, err := remote.Push(ctx, f.a, f.c, remote.PushOptions{}); err != nil {
				t.Fatal(err)
			}
			wb := f.b.WorkTree()
			must(t, os.MkdirAll(filepath.Join(wb, ".git"), 0o755))
			must(t, os.WriteFile(filepath.Join(wb, ".git", "config"), []byte("mine\n"), 0o644))
			if _, err := remote.Pull(ctx, f.b, f.c, remote.PullOptions{}); err != nil {
				t.Logf("pull refused: %v", err)
				return
			}
			before := folderState(t, wb)
			for _, force := range []bool{false, true} {
				res, err := f.b.ApplyPulled(ctx, "", force)
				t.Logf("apply force=%v: %+v %v", force, res, err)
				got, _ := os.ReadFile(filepath.Join(wb, ".git", "config"))
				if string(got) != "mine\n" {
					t.Fatalf("apply wrote .git/config: %q", got)
				}
				if _, err := os.Lstat(filepath.Join(wb, name, "config")); name != ".git" && err == nil {
					t.Fatalf("apply wrote %s/config", name)
				}
				if err != nil {
					if !errors.Is(err, turnback.ErrDotGit) {
						t.Fatalf("apply refused without naming git's directory: %v", err)
					}
					if got := folderState(t, wb); got != before {
						t.Fatalf("a refused apply changed the folder:\n%s\nwas\n%s", got, before)
					}
				}
			}
		})
	}
}
