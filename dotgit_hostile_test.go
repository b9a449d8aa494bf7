package turnback

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
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
	rtWrite(t, work, "a.txt", []byte("a before\n"))
	rtWrite(t, work, "cfg.txt", []byte(hostileConfig))
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
func dgRefused(t *testing.T, what string, err error, name, work string, before map[string]string) {
	t.Helper()
	if !errors.Is(err, ErrDotGit) || !strings.Contains(err.Error(), fmt.Sprintf("refusing %q", name)) {
		t.Errorf("%s of a tree with %q: %v; want ErrDotGit naming the path", what, name+"/config", err)
	}
	rtSame(t, what+" refused", rtTree(t, work), before)
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
			rtWrite(t, work, "a.txt", []byte("a after\n"))
			if _, err := r.End(ctx); err != nil {
				t.Fatal(err)
			}
			hostile := dgCraft(t, r, s1.Snapshot, name)
			if err := r.commit(ctx, []cas.Entry{snapshotEntry(hostile, kindSnap, 0, 0, &skipInfo{})}, nil); err != nil {
				t.Fatal(err)
			}
			before := rtTree(t, work)
			_, err = r.Restore(ctx, hostile.String(), RestoreOptions{})
			dgRefused(t, "restore", err, name, work, before)

			// The turn's before-state becomes the crafted tree.
			turn, err := r.loadTurn(ctx, DefaultSession, 1)
			if err != nil {
				t.Fatal(err)
			}
			turn.Before = hostile
			if err := r.commit(ctx, []cas.Entry{turnEntry(turn)}, nil); err != nil {
				t.Fatal(err)
			}
			_, err = r.Undo(ctx, 1, UndoOptions{})
			dgRefused(t, "undo", err, name, work, before)
			_, err = r.Undo(ctx, 1, UndoOptions{Force: true, DryRun: true})
			dgRefused(t, "undo --dry-run", err, name, work, before)
		})
	}
}

// rtTree reads a folder as path -> content ("->target" for a symlink,
// "/" for a directory), for byte-for-byte comparison.
func rtTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			out[rel] = "->" + target
			return err
		case d.IsDir():
			out[rel] = "/"
		default:
			data, err := os.ReadFile(p)
			info, _ := d.Info()
			out[rel] = string(data) + "|" + info.Mode().Perm().String()
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func rtSame(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for p, w := range want {
		if g, ok := got[p]; !ok || g != w {
			t.Errorf("%s: %s differs (present %v, %d bytes, want %d)", what, p, ok, len(g), len(w))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: %s should not exist", what, p)
		}
	}
}

func rtWrite(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
