package cli

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

// TestStatusNowGeneratedNotDeleted: the built binary, without and with
// a watch daemon (which serves status and show). src/main.c is
// captured by the snap. Then src/ becomes skipped: a tool writes a
// CACHEDIR.TAG into it, or a .gitignore line names it; and the agent
// edits src/main.c. It is on disk, so status, show and log of
// the turn must not call it deleted ("D src/main.c", "-1"): they say
// src/ is skipped now, and why, in the text and in --json.
func TestStatusNowGeneratedNotDeleted(t *testing.T) {
	t.Parallel()
	g := newSubtestGroup(t)
	type skippedDoc struct {
		Path string `json:"path"`
		Dir  bool   `json:"dir"`
		Rule string `json:"rule"`
	}
	type doc struct {
		Changes []struct {
			Path   string `json:"path"`
			Change string `json:"change"`
		} `json:"changes"`
		Deleted    *int         `json:"deleted"`
		SkippedNow []skippedDoc `json:"skipped_now"`
	}
	for _, c := range []struct {
		name, file, data string
		why, rule        string // status's words, and the --json rule
		counts           string // log's counts of the turn
	}{
		{"marker", "src/CACHEDIR.TAG", e2eCacheDirTag, "generated: holds src/CACHEDIR.TAG", "evidence", "+0 ~1 -0"},
		{"ignore rule", ".gitignore", "src/\n", "ignored by .gitignore line 1: src/", "file", "+1 ~1 -0"},
	} {
		for _, env := range []string{"store", "watch"} {
			g.run(c.name+"/"+env, func(t *testing.T) {
				e := skippedNowSetup(t, env, c.file, c.data)
				want := []skippedDoc{{Path: "src", Dir: true, Rule: c.rule}}
				st := e.ok("status")
				if strings.Contains(st.stdout, "D src") || !strings.Contains(st.stdout, "skipped now: src/ ("+c.why+")") {
					t.Errorf("status does not say src/ is skipped now, or says it is deleted:\n%s", st.stdout)
				}
				var sd doc
				e.okJSON(&sd, "status")
				for _, ch := range sd.Changes {
					if strings.HasPrefix(ch.Path, "src") {
						t.Errorf("status --json lists %s as %s", ch.Path, ch.Change)
					}
				}
				if !slices.Equal(sd.SkippedNow, want) {
					t.Errorf("status --json skipped_now = %+v, want %+v", sd.SkippedNow, want)
				}
				e.ok("end")
				show := e.ok("show", "@1")
				if strings.Contains(show.stdout, "D ") || !strings.Contains(show.stdout, "skipped after the turn: src/ (") ||
					!strings.Contains(show.stdout, "changes  "+c.counts) {
					t.Errorf("show @1 says the turn deleted src/main.c, or not that src/ is skipped after it:\n%s", show.stdout)
				}
				var td doc
				e.okJSON(&td, "show", "@1")
				if td.Deleted == nil || *td.Deleted != 0 || !slices.Equal(td.SkippedNow, want) {
					t.Errorf("show --json @1: deleted %v, skipped_now %+v; want 0 and %+v", td.Deleted, td.SkippedNow, want)
				}
				if lg := e.ok("log"); !strings.Contains(lg.stdout, c.counts) {
					t.Errorf("log does not count the turn %s:\n%s", c.counts, lg.stdout)
				}
			})
		}
	}
	g.wait()
}

// skippedNowSetup is a folder, watched by a daemon when env is "watch",
// whose open turn edits a.txt and src/main.c, then writes file (data)
// that makes src skipped. Without a daemon its commands run in-process;
// the watch variants run the binary.
func skippedNowSetup(t *testing.T, env, file, data string) *cliEnv {
	t.Helper()
	e := newInProcessEnv(t) // no daemon: in-process (env_test.go)
	if env == "watch" {
		e = newStoreEnv(t)
		t.Cleanup(func() { e.run("watch", "--stop") })
		e.ok("watch", "--detach")
	}
	e.write("a.txt", "a\n")
	e.write("src/main.c", "int main(void) { return 0; }\n")
	e.ok("snap", "-m", "the turn")
	e.write(file, data)
	e.write("src/main.c", "int main(void) { return 1; }\n")
	e.write("a.txt", "a2\n")
	return e
}
