package restore

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// raceOld and raceNew: a restore that rewrites, deletes, creates and
// re-kinds paths.
var (
	raceOld = tree{
		"a": file("a1", 0o644), "b": file("b1", 0o644), "l": link("a"), "d": dir(0o755), "d/x": file("x1", 0o600),
		"gone": file("gone", 0o644),
	}
	raceNew = tree{
		"a": file("a2", 0o644), "l": link("b"), "d": dir(0o755), "d/x": file("x2", 0o600), "d/y": file("y", 0o644),
		"n": file("new", 0o644),
	}
)

// edit applies a user's edit to the work tree.
type edit func(t *testing.T, base string)

func writeFile(p, data string) edit {
	return func(t *testing.T, base string) {
		if err := os.WriteFile(filepath.Join(base, p), []byte(data), 0o644); err != nil {
			t.Error(err)
		}
	}
}

func relink(p, target string) edit {
	return func(t *testing.T, base string) {
		full := filepath.Join(base, p)
		_ = os.Remove(full)
		if err := os.Symlink(target, full); err != nil {
			t.Error(err)
		}
	}
}

// TestApplyChangedBeforeCommit: an edit made while files are staged (the
// last staging step) is found by the look just before the commit point:
// Apply returns a *ChangedError naming the path, and nothing changes.
func TestApplyChangedBeforeCommit(t *testing.T) {
	cases := []struct {
		name, path string
		edit       edit
	}{
		{"rewritten file", "a", writeFile("a", "USER")},
		{"same size rewrite", "d/x", writeFile("d/x", "XX")},
		{"file to delete", "b", writeFile("b", "USER")},
		{"path to create", "n", writeFile("n", "USER")},
		{"path to create in a new place", "d/y", writeFile("d/y", "USER")},
		{"symlink retargeted", "l", relink("l", "elsewhere")},
		{"file deleted", "gone", func(t *testing.T, base string) { os.Remove(filepath.Join(base, "gone")) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			build(t, e.dir, raceOld)
			p := e.plan(e.actions(raceOld, raceNew))
			o := e.opts()
			stages := 0
			for _, a := range p.Actions {
				if a.writesFile() {
					stages++
				}
			}
			n := 0
			o.Hook = func(step string) error {
				if strings.HasPrefix(step, "stage ") {
					if n++; n == stages {
						tc.edit(t, e.dir)
					}
				}
				return nil
			}
			want := state(t, e.dir)
			_, err := Apply(context.Background(), e.root(), p, o)
			var ce *ChangedError
			if !errors.As(err, &ce) || !errors.Is(err, ErrChanged) {
				t.Fatalf("Apply: %v, want a *ChangedError", err)
			}
			if len(ce.Paths) != 1 || ce.Paths[0].Path != tc.path {
				t.Fatalf("changed paths %v, want only %s", ce.Paths, tc.path)
			}
			// The edit happened after want was read: apply it to want.
			got := state(t, e.dir)
			for p, n := range want {
				if p != tc.path && got[p] != n {
					t.Errorf("%s: %v, want it unchanged (%v)", p, got[p], n)
				}
			}
			if e.commitCount() != 0 {
				t.Error("metadata committed")
			}
			checkClean(t, e)
		})
	}
}

// TestApplyEditAfterCommitSaved: edits made after the commit point, just
// before a path is replaced or removed, are never lost: what the restore
// takes out is saved, reported as Displaced, handed to Amend, and
// readable from the store; the restore completes.
func TestApplyEditAfterCommitSaved(t *testing.T) {
	cases := []struct {
		name, step, path, data string
		edit                   edit
	}{
		{"rewrite before replace", "place a", "a", "USER-A", writeFile("a", "USER-A")},
		{"rewrite before remove", "remove b", "b", "USER-B", writeFile("b", "USER-B")},
		{"create before create", "place n", "n", "USER-N", writeFile("n", "USER-N")},
		{"create in a new dir", "place d/y", "d/y", "USER-Y", writeFile("d/y", "USER-Y")},
		{"retarget before relink", "place l", "l", "", relink("l", "elsewhere")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			build(t, e.dir, raceOld)
			p := e.plan(e.actions(raceOld, raceNew))
			o := e.opts()
			o.Hook = func(step string) error {
				if step == tc.step {
					tc.edit(t, e.dir)
				}
				return nil
			}
			var amended []Displaced
			o.Amend = func(_ context.Context, meta []byte, d []Displaced) ([]byte, error) {
				amended = d
				return append(meta, "+amended"...), nil
			}
			res, err := Apply(context.Background(), e.root(), p, o)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			checkTree(t, e.dir, raceNew)
			checkClean(t, e)
			checkDisplaced(t, e, res.Displaced, tc.path, tc.data)
			checkDisplaced(t, e, amended, tc.path, tc.data)
			if e.commitCount() != 1 || !strings.HasSuffix(string(e.commits[0]), "+amended") {
				t.Errorf("commits %q, want the amended metadata once", e.commits)
			}
		})
	}
}

func checkDisplaced(t *testing.T, e *env, ds []Displaced, path, data string) {
	t.Helper()
	if len(ds) != 1 || ds[0].Path != path {
		t.Fatalf("displaced %v, want %s", ds, path)
	}
	if data == "" {
		if ds[0].Entry.Target != "elsewhere" {
			t.Errorf("displaced symlink target %q", ds[0].Entry.Target)
		}
		return
	}
	r, err := e.store.Open(context.Background(), ds[0].Entry.Hash)
	if err != nil {
		t.Fatalf("displaced content not in the store: %v", err)
	}
	got, _ := io.ReadAll(r)
	if string(got) != data || ds[0].Entry.Size != int64(len(data)) {
		t.Errorf("displaced content %q (size %d), want %q", got, ds[0].Entry.Size, data)
	}
}

// TestRecoverAfterExchangeCrash: a crash between taking an edited file
// out of its path and saving it (the "settle" hook) leaves it under our
// name; recovery saves it, reports it to Amend, and leaves nothing.
func TestRecoverAfterExchangeCrash(t *testing.T) {
	for _, tc := range []struct{ step, path string }{{"a", "a"}, {"b", "b"}, {"n", "n"}} {
		t.Run(tc.path, func(t *testing.T) {
			e := newEnv(t)
			build(t, e.dir, raceOld)
			p := e.plan(e.actions(raceOld, raceNew))
			o := e.opts()
			o.Hook = func(step string) error {
				switch step {
				case "place " + tc.path, "remove " + tc.path:
					writeFile(tc.path, "USER")(t, e.dir)
				case "settle " + tc.path:
					return errInjected
				}
				return nil
			}
			if _, err := Apply(context.Background(), e.root(), p, o); !errors.Is(err, errInjected) || !errors.Is(err, ErrUnfinished) {
				t.Fatalf("Apply: %v, want the injected failure, unfinished", err)
			}
			if !journalExists(t, e) {
				t.Fatal("no journal after a failure past the commit point")
			}
			o = e.opts()
			var amended []Displaced
			o.Amend = func(_ context.Context, meta []byte, d []Displaced) ([]byte, error) {
				amended = d
				return meta, nil
			}
			if _, err := Recover(context.Background(), e.root(), o); err != nil {
				t.Fatalf("Recover: %v", err)
			}
			checkTree(t, e.dir, raceNew)
			checkClean(t, e)
			checkDisplaced(t, e, amended, tc.path, "USER")
		})
	}
}
