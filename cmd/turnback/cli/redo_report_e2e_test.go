package cli

// Issue 30 item 9: a redo of several undos reports each path once, as
// the redo leaves it.

import (
	"regexp"
	"strings"
	"testing"
)

// TestE2ERedoReportOnce: two turns change a.txt (both), c.txt (made,
// then changed) and d.txt (changed, then deleted), the second makes
// b.txt; two undos, then redo 2 (and its dry run, and --json) lists
// each path once with what the redo did to it overall. undo 2 too.
func TestE2ERedoReportOnce(t *testing.T) {
	t.Parallel()
	e := newCLI(t, "work")
	e.write("a.txt", "1\n")
	e.write("d.txt", "d1\n")
	before := e.tree()
	e.ok("snap")
	e.write("a.txt", "2\n")
	e.write("c.txt", "c1\n")
	e.write("d.txt", "d2\n")
	e.ok("end")
	e.ok("snap")
	e.write("a.txt", "3\n")
	e.write("c.txt", "c2\n")
	e.rm("d.txt")
	e.write("b.txt", "b\n")
	e.ok("end")
	after := e.tree()
	e.ok("undo")
	e.ok("undo")
	e.same("after two undos", before)

	checkpoint := regexp.MustCompile(`checkpoint [0-9a-f]{12} \(turnback restore [0-9a-f]{12} goes back\)\n$`)
	const lists = "  M a.txt\n  D d.txt\n  A b.txt\n  A c.txt\n"
	r := e.ok("redo", "2", "--dry-run")
	if r.stdout != "plan (dry run, nothing changed): would redo 2 turns: 1 restored, 1 deleted, 2 brought back\n"+lists {
		t.Errorf("redo 2 --dry-run:\n%s", r.stdout)
	}
	var dry struct {
		Restored, Deleted, Created []string
		DryRun                     bool `json:"dry_run"`
	}
	e.okJSON(&dry, "redo", "2", "--dry-run")
	if got := strings.Join(dry.Restored, " ") + "|" + strings.Join(dry.Deleted, " ") + "|" + strings.Join(dry.Created, " "); got != "a.txt|d.txt|b.txt c.txt" || !dry.DryRun {
		t.Errorf("redo 2 --dry-run --json: %s", got)
	}
	e.same("after the dry runs", before)

	r = e.ok("redo", "2")
	if !strings.HasPrefix(r.stdout, "redid 2 turns: 1 restored, 1 deleted, 2 brought back\n"+lists) || !checkpoint.MatchString(r.stdout) || strings.Count(r.stdout, "\n") != 6 {
		t.Errorf("redo 2:\n%s", r.stdout)
	}
	e.same("after redo 2", after)

	r = e.ok("undo", "2")
	if !strings.HasPrefix(r.stdout, "undid 2 turns: 1 restored, 2 deleted, 1 brought back\n  M a.txt\n  D b.txt\n  D c.txt\n  A d.txt\n") {
		t.Errorf("undo 2:\n%s", r.stdout)
	}
	e.ok("redo", "2") // redo takes the turns of undo 2 one at a time
	e.same("after the redo of undo 2", after)
	e.ok("undo")
	e.ok("undo")
	var doc struct {
		Restored, Deleted, Created []string
		Turns                      int
	}
	e.okJSON(&doc, "redo", "2")
	if got := strings.Join(doc.Restored, " ") + "|" + strings.Join(doc.Deleted, " ") + "|" + strings.Join(doc.Created, " "); got != "a.txt|d.txt|b.txt c.txt" || doc.Turns != 2 {
		t.Errorf("redo 2 --json: %s, %d turns", got, doc.Turns)
	}
	e.same("after redo 2 --json", after)
}
