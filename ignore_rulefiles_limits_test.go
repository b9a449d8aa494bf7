package turnback_test

// Review 42's attacks on the rules of ignored ignore files that a
// state's record keeps (60bb6d5, 008ec96): rules over the old limits
// were dropped, and rules inline in the records overflowed a Badger
// transaction. The rules now go into the store as blobs.

import (
	"os"
	"strings"
	"testing"

	"github.com/turnback/turnback"
)

// bigRules returns rules padded with comment lines to over n bytes.
func bigRules(rules string, n int) string {
	var b strings.Builder
	b.WriteString(rules)
	for b.Len() <= n {
		b.WriteString("# a comment line that pads this ignore file past the limit\n")
	}
	return b.String()
}

// TestUndoIgnoredIgnoreFileOverLimit is TestUndoIgnoredIgnoreFileRules
// with an ignored .ignore over walker.MaxRulesContent (64 KiB): the
// capture applies it (it reads up to 4 MiB), so secret is ignored in
// the turn's before-state. The turn empties .ignore; the undo goes to a
// state that ignored secret and must leave it alone. The record keeps
// nothing of a file that size, and the undo deletes secret.
func TestUndoIgnoredIgnoreFileOverLimit(t *testing.T) {
	for _, reopen := range []bool{false, true} {
		t.Run(map[bool]string{false: "one process", true: "reopened"}[reopen], func(t *testing.T) {
			t.Parallel()
			rt := newRegressTree(t)
			rt.write(".gitignore", ".ignore\n")
			rt.write(".ignore", bigRules("secret\n", 70<<10))
			rt.write("secret", "the user's, ignored")
			rt.write("a", "a")
			rt.snap()
			rt.write(".ignore", "")
			rt.write("a", "the agent's")
			rt.end()
			if reopen {
				rt.reopen()
			}
			res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
			rt.do("undo", err)
			if got := rt.read("a"); got != "a" {
				t.Fatalf("a holds %q after the undo", got)
			}
			if _, err := os.Lstat(rt.path("secret")); err != nil {
				t.Fatalf("secret, ignored before the turn by a .ignore of %d bytes, is gone after the undo: %v (deleted %q)",
					70<<10, err, res.Deleted)
			}
		})
	}
}

// TestUndoIgnoredIgnoreFilesOverTotal: many small ignored ignore files,
// each under MaxRulesContent but together over MaxRulesTotal (1 MiB).
// The last by path, z/.ignore, lists z/secret and no longer fits; the
// turn empties it. The undo must leave z/secret alone, as with one
// small file.
func TestUndoIgnoredIgnoreFilesOverTotal(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", ".ignore\n")
	for i := 0; i < 20; i++ {
		rt.write(string(rune('a'+i))+"/.ignore", bigRules("", 60<<10))
		rt.write(string(rune('a'+i))+"/f", "f")
	}
	rt.write("z/.ignore", bigRules("secret\n", 60<<10))
	rt.write("z/secret", "the user's, ignored")
	rt.write("a/f", "a")
	rt.snap()
	rt.write("z/.ignore", "")
	rt.write("a/f", "the agent's")
	rt.end()
	rt.reopen()
	res, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	if got := rt.read("a/f"); got != "a" {
		t.Fatalf("a/f holds %q after the undo", got)
	}
	if _, err := os.Lstat(rt.path("z/secret")); err != nil {
		t.Fatalf("z/secret, ignored before the turn, is gone after the undo: %v (deleted %q)", err, res.Deleted)
	}
}

// largeRules writes n ignored .ignore files of kib KiB each, each under
// walker.MaxRulesContent and all under MaxRulesTotal: the record keeps
// them all.
func largeRules(rt *regressTree, n, kib int) {
	rt.t.Helper()
	rt.write(".gitignore", ".ignore\n")
	for i := 0; i < n; i++ {
		rt.write("d"+string(rune('0'+i))+"/.ignore", bigRules("", kib<<10))
	}
}

// TestSnapLargeIgnoredRules: 8 ignored ignore files of 60 KiB (480 KiB
// of rules, under MaxRulesTotal). The snap's records (the state's
// record and the capture memo, each with the rules in base64) go in one
// Badger transaction, past its limit (15% of the 8 MiB memtable): the
// snap fails with "Txn is too big to fit into one request".
func TestSnapLargeIgnoredRules(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	largeRules(rt, 8, 60)
	rt.write("a", "a")
	if _, err := rt.repo.Snap(rt.ctx, ""); err != nil {
		t.Fatalf("snap with 480 KiB of ignored rules: %v", err)
	}
}

// TestUndoLargeIgnoredRulesWedges: after the turn, the user's ignored
// ignore files grow to 480 KiB of rules (8 of 60 KiB, under
// MaxRulesTotal). The undo's records (checkpoint, result and memo, each
// with the rules in base64) do not fit one Badger transaction, and are
// committed after the files changed: the undo fails "stopped part way",
// and so does every command after it, recover and recover --rollback
// included. The store is stuck for good.
func TestUndoLargeIgnoredRulesWedges(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", ".ignore\n")
	rt.write("a", "a")
	rt.snap()
	rt.write("a", "the agent's")
	rt.end()
	largeRules(rt, 8, 60)
	_, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	if got := rt.read("a"); err != nil {
		_, serr := rt.repo.Status(rt.ctx)
		_, rerr := rt.repo.Recover(rt.ctx, true)
		rt.reopen()
		_, nerr := rt.repo.Status(rt.ctx)
		t.Fatalf("undo: %v (a now %q)\nthen status: %v\nrecover --rollback: %v\nstatus reopened: %v", err, got, serr, rerr, nerr)
	}
	if _, err := rt.repo.Status(rt.ctx); err != nil {
		t.Fatalf("status after the undo: %v", err)
	}
}
