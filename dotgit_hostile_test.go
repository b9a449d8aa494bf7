package turnback

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/manifest/treetest"
)

// hostileConfig is what a hostile tree puts in .git/config: on a
// case-insensitive filesystem, git would run its fsmonitor command.
const hostileConfig = "[core]\n\tfsmonitor = touch pwned\n"

// dgCraft returns root with name/config added, a file holding cfg.txt's
// content: a tree no capture makes, as a hostile or damaged store holds.
func dgCraft(t *testing.T, r *Repo, root cas.Hash, name string) cas.Hash {
	t.Helper()
	ctx := t.Context()
	cfg, err := manifest.Find(ctx, r.loader(), root, "cfg.txt")
	if err != nil || cfg == nil {
		t.Fatalf("cfg.txt in the tree: %v, %v", cfg, err)
	}
	w := r.store.NewWriter()
	defer w.Cancel()
	h, err := manifest.Edit(ctx, r.loader(), w, root, map[string]*manifest.Entry{
		name:             {Kind: manifest.KindDir, Mode: 0o755},
		name + "/config": cfg,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return h
}

// dgWork makes a folder holding a.txt and cfg.txt (the hostile config's
// content, so that the store has it) and opens a store for it.
func dgWork(t *testing.T) (*Repo, string) {
	t.Helper()
	work := filepath.Join(t.TempDir(), "work")
	treetest.Put(t, work, "a.txt", "a before\n")
	treetest.Put(t, work, "cfg.txt", hostileConfig)
	r, err := Open(t.Context(), work, Options{Store: filepath.Join(t.TempDir(), "store")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, work
}

// dgSpellings are names of git's directory on some filesystem.
var dgSpellings = []string{".GIT", ".Git", ".git.", "git~1", ".g\u200cit", ".git::$INDEX_ALLOCATION"}

// dgRefused checks that err refuses the crafted path by name and that
// the folder is as it was.
func dgRefused(t *testing.T, what string, err error, name, work string, before treetest.Tree) {
	t.Helper()
	if !errors.Is(err, ErrDotGit) || !strings.Contains(err.Error(), fmt.Sprintf("refusing %q", name)) {
		t.Errorf("%s of a tree with %q: %v; want ErrDotGit naming the path", what, name+"/config", err)
	}
	treetest.Equal(t, what+" refused", treetest.MustRead(t, work), before)
}

// TestDotGitHostileRestore: restore to a crafted snapshot holding
// ".GIT/config" (or another spelling of .git), and undo of a turn whose
// before-state holds it, fail with ErrDotGit naming the path and write
// nothing; the ignore rules must not turn the refusal into a note.
func TestDotGitHostileRestore(t *testing.T) {
	t.Parallel()
	for _, name := range dgSpellings {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			r, work := dgWork(t)
			s1, err := r.Snap(ctx, "turn")
			if err != nil {
				t.Fatal(err)
			}
			treetest.Put(t, work, "a.txt", "a after\n")
			if _, err := r.End(ctx); err != nil {
				t.Fatal(err)
			}
			hostile := dgCraft(t, r, s1.Snapshot, name)
			if err := r.commit(ctx, []cas.Entry{model.SnapshotEntry(hostile, model.KindSnap, 0, 0, &model.SkipInfo{})}, nil); err != nil {
				t.Fatal(err)
			}
			before := treetest.MustRead(t, work)
			_, err = r.Restore(ctx, hostile.String(), RestoreOptions{})
			dgRefused(t, "restore", err, name, work, before)

			// The turn's before-state becomes the crafted tree.
			turn, err := r.loadTurn(ctx, DefaultSession, 1)
			if err != nil {
				t.Fatal(err)
			}
			turn.Before = hostile
			if err := r.commit(ctx, []cas.Entry{model.TurnEntry(turn)}, nil); err != nil {
				t.Fatal(err)
			}
			_, err = r.Undo(ctx, 1, UndoOptions{})
			dgRefused(t, "undo", err, name, work, before)
			_, err = r.Undo(ctx, 1, UndoOptions{Force: true, DryRun: true})
			dgRefused(t, "undo --dry-run", err, name, work, before)
		})
	}
}
