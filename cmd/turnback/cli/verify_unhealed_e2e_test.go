package cli

import (
	"strings"
	"testing"
)

// TestRepairSaysWhatItCouldNotRebuild: damaged content that no file of
// the folder holds any more cannot be stored again. verify --repair then
// says so on stdout, above the damage it lists on stderr, and exits 1.
// Before, it printed "nothing to repair: the database opens" while
// listing the damage it left.
func TestRepairSaysWhatItCouldNotRebuild(t *testing.T) {
	t.Parallel()
	e := newCLI(t, "work")
	damagePack(t, e)
	for _, n := range []string{"f1.txt", "f2.txt", "f3.txt"} {
		e.write(n, "something else now\n")
	}
	r := e.expect(1, "verify", "--repair")
	namesDamage(t, "verify --repair", r.stderr, "f1.txt", "f2.txt", "f3.txt")
	want := "nothing repaired: the database opens, but nothing in the folder could rebuild the damage listed below\n"
	if r.stdout != want {
		t.Errorf("verify --repair stdout:\n%s\nwant:\n%s", r.stdout, want)
	}
	// A store without damage still has nothing to repair.
	clean := newCLI(t, "work")
	clean.write("a.txt", "a\n")
	clean.ok("snap")
	if r := clean.ok("verify", "--repair"); !strings.HasPrefix(r.stdout, "nothing to repair: the database opens\n") {
		t.Errorf("verify --repair of a sound store:\n%s", r.stdout)
	}
}
