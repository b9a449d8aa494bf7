package cli

// End-to-end tests of issue 17's finer undo: undo --path (a partial
// undo), undo --merge and --merge=markers, and --dry-run on undo, redo
// and restore, through the built binary on real folders.

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

// TestE2EUndoPartial: a turn changed a.txt and b.txt and created c.txt;
// undo --path a.txt reverts a.txt only and the turn stays listed; undo
// then reverts b.txt and removes c.txt; two redos bring back everything
// exactly. A path the turn did not touch is exit 2, naming it.
func TestE2EUndoPartial(t *testing.T) {
	t.Parallel()
	e := newCLI(t, "work")
	treetest.MustWrite(t, e.dir, treetest.Tree{"a.txt": treetest.File("a before\n", 0o644), "b.txt": treetest.File("b before\n", 0o644), "sub/x.txt": treetest.File("x\n", 0o644)})
	before := e.tree()
	e.ok("snap", "-m", "agent turn")
	e.write("a.txt", "a after\n")
	e.write("b.txt", "b after\n")
	e.write("c.txt", "c created\n")
	e.write("sub/x.txt", "x after\n")
	e.ok("end")
	after := e.tree()

	r := e.expect(2, "undo", "--path", "nothere.txt")
	if !strings.Contains(r.stderr, `"nothere.txt"`) || !strings.Contains(r.stderr, "did not change it") {
		t.Errorf("undo of an untouched path: stderr does not name it:\n%s", r)
	}
	e.same("after the refused partial undo", after)
	e.expect(2, "undo", "--path", "../outside")
	e.same("after the refused path outside", after)

	r = e.ok("undo", "--path", "a.txt")
	if !strings.HasPrefix(r.stdout, "undid 1 turn, only a.txt: 1 restored, 0 deleted, 0 brought back\n  M a.txt\n") {
		t.Errorf("partial undo output:\n%s", r.stdout)
	}
	partial := after.With(nil)
	partial["a.txt"] = before["a.txt"]
	e.same("after undo --path a.txt", partial)
	if r := e.ok("log"); !strings.Contains(r.stdout, "   1  ") {
		t.Errorf("log no longer lists the turn after a partial undo:\n%s", r.stdout)
	}

	// A path relative to the current directory, as git takes it.
	r = e.exec(e.path("sub"), nil, "undo", "--path", "x.txt")
	if r.code != 0 || !strings.Contains(r.stdout, "only sub/x.txt") {
		t.Fatalf("undo --path from a subfolder: %v", r)
	}
	partial["sub/x.txt"] = before["sub/x.txt"]
	e.same("after undo --path sub/x.txt from sub", partial)
	e.ok("redo")
	partial["sub/x.txt"] = after["sub/x.txt"]
	e.same("after redoing the subfolder's partial undo", partial)

	r = e.ok("undo")
	if !strings.HasPrefix(r.stdout, "undid 1 turn: 2 restored, 1 deleted, 0 brought back\n") {
		t.Errorf("whole undo after a partial one:\n%s", r.stdout)
	}
	e.same("after the whole undo", before)
	e.ok("redo")
	e.same("after the first redo (the whole undo's)", partial)
	e.ok("redo")
	e.same("after the second redo (the partial undo's)", after)
	if r := e.ok("redo"); r.stdout != "nothing to redo\n" {
		t.Errorf("a third redo: %q", r.stdout)
	}
}

// fifty is a 50-line file with the lines given replaced.
func fifty(repl map[int]string) string {
	var b strings.Builder
	for i := 1; i <= 50; i++ {
		if s, ok := repl[i]; ok {
			b.WriteString(s + "\n")
			continue
		}
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// TestE2EUndoMerge: the agent changed line 40, the user line 2 since:
// undo is a conflict (exit 3); undo --merge keeps line 2's edit and
// reverts line 40; redo restores the file exactly as before the undo.
// Overlapping edits: undo --merge exits 3 and changes nothing;
// --merge=markers writes conflict markers (golden file).
func TestE2EUndoMerge(t *testing.T) {
	t.Parallel()
	e := newCLI(t, "work")
	e.write("m.txt", fifty(nil))
	e.write("bin.dat", "\x00\x01agent before")
	e.ok("snap")
	e.write("m.txt", fifty(map[int]string{40: "agent 40"}))
	e.ok("end")
	e.write("m.txt", fifty(map[int]string{2: "user 2", 40: "agent 40"}))
	edited := e.tree()

	r := e.expect(3, "undo")
	if !strings.Contains(r.stderr, "m.txt: modified since") {
		t.Errorf("undo over the user's edit:\n%s", r)
	}
	e.same("after the refused undo", edited)
	r = e.ok("undo", "--merge")
	if !strings.Contains(r.stdout, "  M m.txt (merged: edits made since are kept)\n") {
		t.Errorf("undo --merge output:\n%s", r.stdout)
	}
	if got, want := string(e.read("m.txt")), fifty(map[int]string{2: "user 2"}); got != want {
		t.Errorf("after undo --merge m.txt is\n%s\nwant\n%s", got, want)
	}
	e.ok("redo")
	e.same("after redo of the merge", edited)

	// Overlap: the user edited the agent's line.
	e.write("m.txt", fifty(map[int]string{40: "user 40"}))
	e.ok("snap")
	e.ok("end") // no change: dropped
	overlap := e.tree()
	r = e.expect(3, "undo", "--merge")
	if !strings.Contains(r.stderr, "m.txt: modified since; not merged: the edits overlap the turns' changes") {
		t.Errorf("undo --merge of an overlap:\n%s", r)
	}
	e.same("after the refused merge", overlap)
	r = e.ok("--json", "undo", "--merge=markers")
	var doc struct {
		Merged  []string `json:"merged"`
		Markers []string `json:"markers"`
	}
	cliOneJSON(t, r.stdout, &doc)
	if !reflect.DeepEqual(doc.Merged, []string{"m.txt"}) || !reflect.DeepEqual(doc.Markers, []string{"m.txt"}) {
		t.Errorf("undo --merge=markers --json: merged %q markers %q", doc.Merged, doc.Markers)
	}
	golden := filepath.Join("..", "testdata", "undo", "merge_markers.golden")
	got := e.read("m.txt")
	if *updateGolden {
		cliWriteFile(t, golden, got)
	}
	want, err := os.ReadFile(golden)
	if err != nil || string(got) != string(want) {
		t.Errorf("m.txt with markers (want %s, -update rewrites it; %v):\n%s", golden, err, got)
	}
	e.ok("redo")
	e.same("after redo of the markers", overlap)
}

// TestE2EUndoMergeBinary: a binary file is never merged: exit 3 and
// nothing changed, also with --merge=markers.
func TestE2EUndoMergeBinary(t *testing.T) {
	t.Parallel()
	e := newCLI(t, "work")
	e.write("bin.dat", "a\x00b\nline\n")
	e.ok("snap")
	e.write("bin.dat", "a\x00b\nline\nagent\n")
	e.ok("end")
	e.write("bin.dat", "user\na\x00b\nline\nagent\n")
	edited := e.tree()
	r := e.expect(3, "undo", "--merge=markers")
	if !strings.Contains(r.stderr, "bin.dat: modified since; not merged: binary") {
		t.Errorf("undo --merge of a binary file:\n%s", r)
	}
	e.same("after the refused merge", edited)
	e.expect(2, "undo", "--merge=other")
}

// storeFiles reads every file of the store directory: name, mode and
// content, for "nothing in the store changed".
func storeFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel] = fmt.Sprintf("dir %v", fi.Mode())
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = fmt.Sprintf("%v %x", fi.Mode(), sha256.Sum256(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// restoreLists is what the --json document of undo, redo and restore
// (and of their dry runs) says was (would be) done.
type restoreLists struct {
	Turns         int               `json:"turns"`
	Restored      []string          `json:"restored"`
	Deleted       []string          `json:"deleted"`
	Created       []string          `json:"created"`
	Merged        []string          `json:"merged"`
	Markers       []string          `json:"markers"`
	Conflicts     []string          `json:"conflicts"`
	NotRestorable []string          `json:"not_restorable"`
	Reasons       map[string]string `json:"reasons"`
	Paths         []string          `json:"paths"`
	DryRun        bool              `json:"dry_run"`
}

// dryThenReal runs args with --dry-run, checks that neither the tree
// nor the store changed, then runs args for real and checks that the
// dry run listed exactly what it did. Both must exit code.
func dryThenReal(t *testing.T, e *cliEnv, store string, code int, args ...string) restoreLists {
	t.Helper()
	tree, files := e.tree(), storeFiles(t, store)
	r := e.expect(code, append([]string{"--json"}, append(args, "--dry-run")...)...)
	var dry, real restoreLists
	cliOneJSON(t, r.stdout, &dry)
	e.same(fmt.Sprintf("after %q --dry-run", args), tree)
	if now := storeFiles(t, store); !reflect.DeepEqual(now, files) {
		for k, v := range now {
			if files[k] != v {
				t.Errorf("%q --dry-run changed the store: %s: %s -> %s", args, k, files[k], v)
			}
		}
		for k := range files {
			if _, ok := now[k]; !ok {
				t.Errorf("%q --dry-run removed %s from the store", args, k)
			}
		}
	}
	if !dry.DryRun {
		t.Errorf("%q --dry-run: no \"dry_run\": true in\n%s", args, r.stdout)
	}
	r = e.expect(code, append([]string{"--json"}, args...)...)
	cliOneJSON(t, r.stdout, &real)
	real.DryRun = true
	for _, l := range []*[]string{&dry.Restored, &dry.Deleted, &dry.Created, &dry.Conflicts, &real.Restored, &real.Deleted, &real.Created, &real.Conflicts} {
		sort.Strings(*l)
	}
	if code == 3 {
		// A refused command's document lists the conflicts only.
		real.Turns = dry.Turns
	}
	if !reflect.DeepEqual(dry, real) {
		t.Errorf("%q: the dry run said\n%+v\nthe command did\n%+v", args, dry, real)
	}
	return real
}

// TestE2EDryRun: undo, redo and restore --dry-run (and --json) list
// exactly what the command then does, conflicts included, and leave the
// tree and every file of the store byte for byte as they were.
func TestE2EDryRun(t *testing.T) {
	t.Parallel()
	e := newInProcessEnv(t) // 16 commands: in-process (env_test.go)
	treetest.MustWrite(t, e.dir, treetest.Tree{"a.txt": treetest.File("a\n", 0o644), "b.txt": treetest.File("b\n", 0o644), "gone.txt": treetest.File("gone\n", 0o644), "m.txt": treetest.File(fifty(nil), 0o644)})
	first := strings.TrimSpace(e.ok("snap").stdout)
	e.write("a.txt", "a2\n")
	e.write("c.txt", "c\n")
	e.rm("gone.txt")
	e.write("m.txt", fifty(map[int]string{40: "agent"}))
	e.ok("end")
	e.ok("snap")
	e.write("b.txt", "b2\n")
	e.ok("end")
	e.write("m.txt", fifty(map[int]string{2: "user", 40: "agent"})) // an edit since

	l := dryThenReal(t, e, e.store, 3, "undo", "2")
	if !reflect.DeepEqual(l.Conflicts, []string{"m.txt"}) {
		t.Errorf("undo 2 conflicts %q", l.Conflicts)
	}
	l = dryThenReal(t, e, e.store, 0, "undo", "--path", "a.txt", "--path", "c.txt", "2")
	if !reflect.DeepEqual(l.Restored, []string{"a.txt"}) || !reflect.DeepEqual(l.Deleted, []string{"c.txt"}) || l.Turns != 2 {
		t.Errorf("partial undo lists %+v", l)
	}
	l = dryThenReal(t, e, e.store, 0, "undo", "--merge", "2")
	if !reflect.DeepEqual(l.Merged, []string{"m.txt"}) || !reflect.DeepEqual(l.Created, []string{"gone.txt"}) {
		t.Errorf("undo --merge lists %+v", l)
	}
	e.write("a.txt", "edited after the undo\n")
	if l := dryThenReal(t, e, e.store, 3, "redo", "2"); !reflect.DeepEqual(l.Conflicts, []string{"a.txt"}) {
		t.Errorf("redo 2 conflicts %q", l.Conflicts)
	}
	e.write("a.txt", "a\n")
	l = dryThenReal(t, e, e.store, 0, "redo", "3")
	if l.Turns != 4 { // two turns, then the partial undo of two
		t.Errorf("redo 3: %d turns", l.Turns)
	}
	l = dryThenReal(t, e, e.store, 0, "restore", first)
	if len(l.Restored)+len(l.Deleted)+len(l.Created) == 0 {
		t.Errorf("restore of the first before-state changed nothing: %+v", l)
	}
}

// TestE2EUndoMergeLineEndings: a CRLF file and a file without a final
// newline keep their line endings through undo --merge, and redo gives
// back their bytes exactly.
func TestE2EUndoMergeLineEndings(t *testing.T) {
	t.Parallel()
	e := newCLI(t, "work")
	crlf := func(repl map[int]string) string { return strings.ReplaceAll(fifty(repl), "\n", "\r\n") }
	noNL := func(repl map[int]string) string { return strings.TrimSuffix(fifty(repl), "\n") }
	e.write("crlf.txt", crlf(nil))
	e.write("nonl.txt", noNL(nil))
	e.ok("snap")
	e.write("crlf.txt", crlf(map[int]string{40: "agent 40"}))
	e.write("nonl.txt", noNL(map[int]string{10: "agent 10"}))
	e.ok("end")
	e.write("crlf.txt", crlf(map[int]string{2: "user 2", 40: "agent 40"}))
	e.write("nonl.txt", noNL(map[int]string{10: "agent 10", 50: "user 50"}))
	edited := e.tree()
	e.ok("undo", "--merge")
	if got, want := string(e.read("crlf.txt")), crlf(map[int]string{2: "user 2"}); got != want {
		t.Errorf("crlf.txt after undo --merge:\n%q\nwant\n%q", got, want)
	}
	if got, want := string(e.read("nonl.txt")), noNL(map[int]string{50: "user 50"}); got != want {
		t.Errorf("nonl.txt after undo --merge:\n%q\nwant\n%q", got, want)
	}
	e.ok("redo")
	e.same("after redo", edited)
}
