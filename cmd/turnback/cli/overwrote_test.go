package cli

import (
	"strings"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

// TestUndoForceNamesOnlyChangedPaths: undo --force lists as overwritten
// only the paths it really changed; a conflicting path it could not
// restore is listed as not restored, not as overwritten (and makes the
// undo incomplete: exit 5).
func TestUndoForceNamesOnlyChangedPaths(t *testing.T) {
	t.Parallel()
	e := newUndoEnv(t)
	e.write("k", "a file the turn deletes\n")
	e.write("m", "m1\n")
	e.ok("snap")
	e.rm("k")
	e.write("m", "m2\n")
	e.ok("end")
	// The user makes k a directory with a file in it, and edits m.
	e.mkdir("k")
	e.write("k/mine.txt", "the user's\n")
	e.write("m", "user\n")
	e.expect(3, "undo")
	r := e.expect(5, "undo", "--force")
	if !strings.Contains(r.stdout, "  overwrote m (modified since)\n") {
		t.Errorf("m is not listed as overwritten:\n%v", r)
	}
	if strings.Contains(r.stdout, "overwrote k") {
		t.Errorf("k, which undo did not restore, is listed as overwritten:\n%v", r)
	}
	if !strings.Contains(r.stdout, "  not restored: k (") {
		t.Errorf("k is not listed as not restored:\n%v", r)
	}
	e.same("after undo --force", treetest.Tree{"k": treetest.Dir(0o755), "k/mine.txt": treetest.File("the user's\n", 0o644), "m": treetest.File("m1\n", 0o644)})
}
