package main

import (
	"slices"
	"strings"
	"testing"
)

// TestUndoSaysCreatedLeftInNowGenerated: the built binary, without and
// with a watch daemon. A turn writes main.c and creates build/gen.c, a
// hand-written file in a new build/ with no marker: both are captured.
// After the turn the user runs cmake in build/ (build/CMakeCache.txt),
// so build/ is generated now. The undo rightly leaves build/ alone, but
// build/gen.c, which the turn made, stays, and the undo must say so, as
// it does for a file the turn modified there ("not restored: build/gen.c
// (ignored in the current state; left as is)"). It says nothing: it
// prints "undid 1 turn", exit 0, and --json lists build/gen.c nowhere.
func TestUndoSaysCreatedLeftInNowGenerated(t *testing.T) {
	t.Parallel()
	g := newSubtestGroup(t)
	for _, env := range []string{"store", "watch"} {
		g.run(env, func(t *testing.T) {
			e := newStoreEnv(t)
			e.write("main.c", "v0\n")
			if env == "watch" {
				t.Cleanup(func() { e.run("watch", "--stop") })
				e.ok("watch", "--detach")
			}
			e.ok("snap", "-m", "add a generator")
			e.write("main.c", "v1\n")
			e.write("build/gen.c", "the agent's generator\n")
			e.ok("end")
			e.write("build/CMakeCache.txt", "CMAKE_BUILD_TYPE:STRING=Debug\n")
			e.write("build/main.o", "object\n")
			doc := e.jsonOK("undo")
			if got := string(e.read("build/gen.c")); got != "the agent's generator\n" {
				t.Fatalf("build/gen.c holds %q: the undo touched a generated directory", got)
			}
			if got := string(e.read("main.c")); got != "v0\n" {
				t.Fatalf("main.c holds %q after the undo", got)
			}
			if !slices.Contains(doc.NotRestorable, "build/gen.c") && !slices.Contains(doc.NotRestorable, "build") {
				t.Errorf("undo --json does not say build/gen.c, made by the turn, is left: %+v", doc)
			}
		})
	}
	g.wait()
}

// TestStatusNowGeneratedNotDeleted: the built binary. src/main.c is
// captured by the snap. Then a tool writes a CACHEDIR.TAG into src/
// (the turn's or the user's), so src/ is skipped from now on, and the
// agent edits src/main.c. Plain status (no --ignored), show and log of
// the turn report src/main.c as deleted ("D src/main.c", "-1") though it
// is on disk, and do not say that src/ is skipped now, nor why: a user
// reads that the agent deleted the source. The undo leaves src/ as it
// is, so nothing the agent did there comes back either.
func TestStatusNowGeneratedNotDeleted(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	e.write("a.txt", "a\n")
	e.write("src/main.c", "int main(void) { return 0; }\n")
	e.ok("snap", "-m", "the turn")
	e.write("src/CACHEDIR.TAG", e2eCacheDirTag)
	e.write("src/main.c", "int main(void) { return 1; }\n")
	e.write("a.txt", "a2\n")
	st := e.ok("status")
	if strings.Contains(st.stdout, "D src/main.c") && !strings.Contains(st.stdout, "CACHEDIR.TAG") {
		t.Errorf("status says src/main.c, on disk, is deleted, and not that src/ is skipped now:\n%s", st.stdout)
	}
	e.ok("end")
	show := e.ok("show", "@1")
	if strings.Contains(show.stdout, "src/main.c") && !strings.Contains(show.stdout, "CACHEDIR.TAG") {
		t.Errorf("show @1 says the turn deleted src/main.c:\n%s", show.stdout)
	}
	if lg := e.ok("log"); strings.Contains(lg.stdout, "-1") {
		t.Errorf("log counts a deletion the turn did not make:\n%s", lg.stdout)
	}
}
