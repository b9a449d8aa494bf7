package turnback_test

// An ignore file that is itself ignored (.gitignore lists .ignore) is in
// no stored tree, but capture applies its rules. Undo, redo and restore
// must judge the states by those rules too: the state's record keeps
// them (model.SkipInfo).

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/turnback/turnback"
)

// reopen closes the Repo and opens a new one on the same folder and
// store, as the next command of the CLI would: what it knows of the
// states comes from their records, not from this process's memory.
func (rt *regressTree) reopen() {
	rt.t.Helper()
	rt.repo.Close()
	r, err := turnback.Open(rt.ctx, rt.dir, turnback.Options{Store: rt.store, LockWait: -1})
	rt.do("open", err)
	rt.repo = r
	rt.t.Cleanup(func() { r.Close() })
}

// TestUndoIgnoredIgnoreFileRules: the ignored ignore file rules lists
// secret, a file of the user's, before the turn. The turn empties it:
// secret appears in the turn's after-state as a file the turn created.
// The undo must leave secret alone: it was ignored in the state the
// undo goes to. Each case runs in one process and with the Repo reopened
// before the undo (the records alone then tell the rules).
func TestUndoIgnoredIgnoreFileRules(t *testing.T) {
	for _, c := range []struct {
		name, gitignore, rules, secret string
	}{
		{"top .ignore", ".ignore\n", ".ignore", "secret"},
		{"nested sub/.ignore", "sub/.ignore\n", "sub/.ignore", "sub/secret"},
		{"nested, by name", ".ignore\n", "sub/.ignore", "sub/secret"},
		{".turnbackignore", ".turnbackignore\n", ".turnbackignore", "secret"},
		{"ignores itself", "", ".ignore", "secret"},
	} {
		for _, reopen := range []bool{false, true} {
			name := c.name
			if reopen {
				name += ", reopened"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				rt := newRegressTree(t)
				rt.write(".gitignore", c.gitignore)
				rules := "secret\n"
				if c.gitignore == "" {
					rules = "secret\n" + c.rules + "\n"
				}
				rt.write(c.rules, rules)
				rt.write(c.secret, "the user's, ignored")
				rt.write("a", "a")
				rt.snap()
				if c.gitignore == "" {
					rt.write(c.rules, c.rules+"\n")
				} else {
					rt.write(c.rules, "")
				}
				rt.write("a", "the agent's")
				rt.end()
				if reopen {
					rt.reopen()
				}
				res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
				rt.do("undo", err)
				if got := rt.read(c.secret); got != "the user's, ignored" {
					t.Fatalf("%s, ignored before the turn, holds %q after the undo (%+v)", c.secret, got, res)
				}
				if got := rt.read("a"); got != "a" {
					t.Fatalf("a holds %q after the undo", got)
				}
			})
		}
	}
}

// TestRedoIgnoredIgnoreFileRules: the turn adds a rule for secret to
// the ignored .ignore, so the turn's after-state ignores secret. After
// the undo the user empties .ignore again. The redo goes to the
// after-state, which ignores secret: it must leave secret alone, and
// not call it a conflict; with --force neither.
func TestRedoIgnoredIgnoreFileRules(t *testing.T) {
	for _, c := range []struct {
		name          string
		reopen, force bool
	}{{"one process", false, false}, {"reopened", true, false}, {"forced", true, true}} {
		reopen := c.reopen
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rt := newRegressTree(t)
			rt.write(".gitignore", ".ignore\n")
			rt.write(".ignore", "")
			rt.write("secret", "the user's")
			rt.write("a", "a")
			rt.snap()
			rt.write(".ignore", "secret\n")
			rt.write("a", "the agent's")
			rt.end()
			res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
			rt.do("undo", err)
			if rt.read("a") != "a" || rt.read("secret") != "the user's" {
				t.Fatalf("after the undo (%+v): a %q, secret %q", res, rt.read("a"), rt.read("secret"))
			}
			rt.write(".ignore", "")
			if reopen {
				rt.reopen()
			}
			res, err = rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{Force: c.force})
			rt.do("redo", err)
			if got := rt.read("secret"); got != "the user's" {
				t.Fatalf("secret, ignored in the state redone to, holds %q after the redo (%+v)", got, res)
			}
			if got := rt.read("a"); got != "the agent's" {
				t.Fatalf("a holds %q after the redo", got)
			}
		})
	}
}

// TestRestoreIgnoredIgnoreFileRules: a snapshot taken while the ignored
// .ignore listed secret ignores secret. The user empties .ignore; a
// restore of that snapshot must leave secret alone.
func TestRestoreIgnoredIgnoreFileRules(t *testing.T) {
	for _, reopen := range []bool{false, true} {
		t.Run(map[bool]string{false: "one process", true: "reopened"}[reopen], func(t *testing.T) {
			t.Parallel()
			rt := newRegressTree(t)
			rt.write(".gitignore", ".ignore\n")
			rt.write(".ignore", "secret\n")
			rt.write("secret", "the user's")
			rt.write("a", "a")
			id := rt.snap()
			rt.end()
			rt.write(".ignore", "")
			rt.write("a", "later")
			rt.snap()
			rt.end()
			if reopen {
				rt.reopen()
			}
			res, err := rt.repo.Restore(rt.ctx, id, turnback.RestoreOptions{})
			rt.do("restore", err)
			if got := rt.read("secret"); got != "the user's" {
				t.Fatalf("secret, ignored in the state restored, holds %q after the restore (%+v)", got, res)
			}
			if got := rt.read("a"); got != "a" {
				t.Fatalf("a holds %q after the restore", got)
			}
		})
	}
}

// TestStatusIgnoredShowsNoRules: status --ignored lists an ignored
// ignore file as before: the content its capture keeps for the record
// is not shown.
func TestStatusIgnoredShowsNoRules(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", ".ignore\n")
	rt.write(".ignore", "secret\n")
	rt.write("secret", "s")
	res, err := rt.repo.StatusWith(rt.ctx, turnback.StatusOptions{Ignored: true})
	rt.do("status", err)
	data, err := json.Marshal(res.Ignored)
	rt.do("marshal", err)
	want := `[{"path":".ignore","reason":"ignored by .gitignore line 1: .ignore","rule":"file","file":".gitignore","line":1},` +
		`{"path":"secret","reason":"ignored by .ignore line 1: secret","rule":"file","file":".ignore","line":1}]`
	if string(data) != want {
		t.Fatalf("status lists ignored\n%s\nwant\n%s", data, want)
	}
}

// TestUndoDeletedAndIgnoredByIgnoredFile: the turn deletes x and adds a
// rule for it to the ignored .ignore. Nothing is at x now, so the undo
// brings x back although the state it starts from ignores x.
func TestUndoDeletedAndIgnoredByIgnoredFile(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", ".ignore\n")
	rt.write(".ignore", "")
	rt.write("x", "x before the turn")
	rt.snap()
	rt.do("rm", os.Remove(rt.path("x")))
	rt.write(".ignore", "x\n")
	rt.end()
	rt.reopen()
	res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	if got := rt.read("x"); got != "x before the turn" {
		t.Fatalf("x holds %q after the undo (%+v)", got, res)
	}
}
