package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLISessionNames: a session name the rule refuses, from --session
// or TURNBACK_SESSION, is a usage error (exit 2) of every command that
// takes one, push, pull and clone included, saying what is wrong; no
// store, folder or session is made. Names that are fine stay fine.
func TestCLISessionNames(t *testing.T) {
	t.Parallel()
	e := newCLI(t, "work")
	e.write("a.txt", "one")
	xdgBefore, _ := os.ReadDir(e.xdg)
	// The first name runs the binary on the default store; the others run
	// in-process (env_test.go), which needs a named store.
	ip := *e
	ip.inProcess, ip.store = true, filepath.Join(e.base, "store")
	for i, c := range []struct{ name, why string }{
		{"..", `"..": "." and ".." are not names`},
		{".", `".": "." and ".." are not names`},
		{`a\b`, `"a\\b": no spaces, slashes, backslashes or control characters`},
		{"a/b", `"a/b": no spaces, slashes, backslashes or control characters`},
		{"a\u0085", `"a\u0085": no spaces, slashes, backslashes or control characters`},
		{"\xff", `"\xff": not UTF-8`},
		{strings.Repeat("x", 201), `201 bytes, at most 200`},
	} {
		want := "turnback: invalid session name " + c.why + "\nRun 'turnback --help' for usage.\n"
		if c.why == "201 bytes, at most 200" {
			want = "turnback: invalid session name: " + c.why + "\nRun 'turnback --help' for usage.\n"
		}
		on := e
		if i > 0 {
			on = &ip
		}
		for _, args := range [][]string{
			{"--session", c.name, "snap"}, {"--session", c.name, "undo"}, {"--session", c.name, "log"},
			{"--session", c.name, "push"}, {"--session", c.name, "pull"},
			{"--session", c.name, "clone", "s3://bkt/p", filepath.Join(e.base, "clone")},
		} {
			if r := on.run(args...); r.code != 2 || r.stdout != "" || r.stderr != want {
				t.Fatalf("%s\nwant stderr %q", r, want)
			}
		}
		if r := on.with("TURNBACK_SESSION=" + c.name).run("snap"); r.code != 2 || r.stderr != want {
			t.Fatalf("TURNBACK_SESSION: %s", r)
		}
	}
	for _, p := range []string{filepath.Join(e.base, "clone"), ip.store} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Fatalf("%s was made: %v", p, err)
		}
	}
	if xdg, _ := os.ReadDir(e.xdg); len(xdg) != len(xdgBefore) {
		t.Fatalf("a store was made: %v", xdg)
	}
	for _, name := range []string{"..a", "a.", "Agent-1", "日本"} {
		e.ok("--session", name, "snap")
	}
	if r := e.ok("sessions"); strings.Count(r.stdout, "\n") < 4 {
		t.Fatalf("sessions: %s", r)
	}
}
