package turnback

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/cas/s3/s3test"
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

// TestDotGitHostileClone: a session on a remote whose newest state holds
// ".GIT/config" (pushed from a crafted store) is not cloned: the clone
// fails with ErrDotGit naming the path and the folder stays empty.
func TestDotGitHostileClone(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	ctx := t.Context()
	r, work := dgWork(t)
	if _, err := r.Snap(ctx, "turn"); err != nil {
		t.Fatal(err)
	}
	rtWrite(t, work, "a.txt", []byte("a after\n"))
	s2, err := r.End(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hostile := dgCraft(t, r, s2.Snapshot, ".GIT")
	turn, err := r.loadTurn(ctx, DefaultSession, 1)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := r.loadSession(ctx, DefaultSession)
	if err != nil {
		t.Fatal(err)
	}
	turn.After, sess.Last = hostile, hostile.String()
	err = r.commit(ctx, []cas.Entry{turnEntry(turn), sessionEntry(sess), snapshotEntry(hostile, kindSnap, 0, 0, &skipInfo{}),
		{Key: []byte(keyLatest), Value: []byte(hostile.String())}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Push(ctx, srv.Client(t, "bucket", "x"), PushOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "clone")
	_, err = Clone(context.WithoutCancel(ctx), srv.Client(t, "bucket", "x"), srv.Config("bucket", "x"), dir,
		Options{Store: filepath.Join(t.TempDir(), "store"), Session: DefaultSession})
	if !errors.Is(err, ErrDotGit) || !strings.Contains(err.Error(), ".GIT") {
		t.Errorf("clone of a session holding .GIT/config: %v; want ErrDotGit naming it", err)
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		t.Errorf("the clone wrote into the folder: %v", rtTree(t, dir))
	}
}
