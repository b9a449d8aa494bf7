package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdoptMovedFolder: a folder moved to a new path finds no history
// there (its store is named after the old path). adopt, run at the new
// path, takes it over: log lists the turn again and undo puts the files
// back byte for byte. Before, the history could not be reached at all:
// --store with the old store was refused, as it belongs to the old path.
func TestAdoptMovedFolder(t *testing.T) {
	t.Parallel()
	e := newCLI(t, "app")
	e.write("a.txt", "before\n")
	e.write("sub/b.txt", "kept\n")
	e.ok("snap")
	e.write("a.txt", "after\n")
	e.write("new.txt", "made by the turn\n")
	e.ok("end")

	old := e.dir
	e.dir = filepath.Join(e.base, "app-renamed")
	if err := os.Rename(old, e.dir); err != nil {
		t.Fatal(err)
	}
	hint := "turnback: " + old + ", which is gone, has history: if this folder was moved or renamed from there, run: turnback adopt " + old + "\n"
	if r := e.ok("log"); strings.Contains(r.stdout, "+1 ~1") || r.stderr != hint {
		t.Fatalf("log in the moved folder before adopt:\n%v\nwant on stderr:\n%s", r, hint)
	}
	// "nothing to undo", and a store without history here.
	if r := e.ok("undo"); r.stdout != "nothing to undo\n" || r.stderr != hint {
		t.Fatalf("undo in the moved folder before adopt:\n%v\nwant on stderr:\n%s", r, hint)
	}
	if r := e.ok("--json", "log"); r.stderr != "" {
		t.Errorf("log --json says more than its document:\n%v", r)
	}

	var doc struct {
		From, Store, Was string
		WorkTree         string `json:"work_tree"`
		Replaced         bool
		Sessions, Turns  int
	}
	r := e.okJSON(&doc, "adopt", old)
	if doc.From != old || doc.WorkTree != e.dir || doc.Turns != 1 || !doc.Replaced || doc.Sessions != 1 ||
		filepath.Dir(doc.Store) != filepath.Join(e.xdg, "turnback") || !strings.HasPrefix(filepath.Base(doc.Store), "app-renamed-") ||
		!strings.HasPrefix(filepath.Base(doc.Was), "app-") {
		t.Fatalf("adopt --json: %+v\n%s", doc, r.stdout)
	}
	stores, _ := filepath.Glob(filepath.Join(e.xdg, "turnback", "*"))
	if len(stores) != 1 || stores[0] != doc.Store {
		t.Errorf("stores after adopt: %v, want only %s", stores, doc.Store)
	}
	if r := e.ok("log"); !strings.Contains(r.stdout, "+1 ~1 -0") || r.stderr != "" {
		t.Errorf("log after adopt does not list the turn (or still hints):\n%v", r)
	}
	e.ok("undo")
	for name, want := range map[string]string{"a.txt": "before\n", "sub/b.txt": "kept\n"} {
		if got := string(e.read(name)); got != want {
			t.Errorf("after undo %s = %q, want %q", name, got, want)
		}
	}
	if _, err := os.Lstat(filepath.Join(e.dir, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("after undo new.txt: %v, want it gone", err)
	}
	e.ok("redo")
	if got := string(e.read("new.txt")); got != "made by the turn\n" {
		t.Errorf("after redo new.txt = %q", got)
	}
}

// TestAdoptRefuses: adopt changes nothing while the old folder exists,
// when no store records it, when this folder has history of its own,
// and with --store.
func TestAdoptRefuses(t *testing.T) {
	t.Parallel()
	e := newCLI(t, "one")
	e.write("a.txt", "a\n")
	e.ok("snap")
	e.ok("end")
	one := e.dir

	two := newCLI(t, "two")
	two.home, two.xdg = e.home, e.xdg // the same user
	two.write("b.txt", "b\n")
	two.ok("snap")

	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"old folder exists", []string{"adopt", one}, 1, "still exists"},
		{"no store records it", []string{"adopt", filepath.Join(e.base, "never")}, 1, "no store under"},
		{"with --store", []string{"--store", filepath.Join(e.base, "s"), "adopt", one}, 2, "--store is not taken"},
		{"no path", []string{"adopt"}, 2, "accepts 1 arg"},
	}
	for _, c := range cases {
		r := two.expect(c.code, c.args...)
		if !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: stderr %q, want %q", c.name, r.stderr, c.want)
		}
	}
	// The old folder gone, this folder's own turn still refuses it.
	if err := os.RemoveAll(one); err != nil {
		t.Fatal(err)
	}
	r := two.expect(1, "adopt", one)
	if !strings.Contains(r.stderr, "this folder has history of its own") {
		t.Errorf("adopt over history: %s", r.stderr)
	}
	if r := two.ok("log"); !strings.Contains(r.stdout, "   1 ") {
		t.Errorf("after the refusal, two's own turn is gone:\n%s", r.stdout)
	}
	stores, _ := filepath.Glob(filepath.Join(e.xdg, "turnback", "*"))
	if len(stores) != 2 {
		t.Errorf("stores after the refusals: %v, want both", stores)
	}
}
