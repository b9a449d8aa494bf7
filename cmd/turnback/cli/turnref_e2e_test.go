package cli

// End-to-end tests of turn references (@N, @N^) and of the 4-digit rule
// for snapshot id prefixes, through the built binary: show @N and
// diff @N byte for byte against the golden files in testdata/turn (go
// test -run TestTurnGolden -update rewrites them; the snapshot ids, which
// hash the files' owners, are masked), restore @N and @N^ byte for byte,
// hostile references, and the session @N is resolved in.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

// trGolden compares got with testdata/turn/name (or rewrites it with
// -update).
func trGolden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("..", "testdata", "turn", name)
	if *updateGolden {
		cliWriteFile(t, p, []byte(got))
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n--- got\n%s--- want\n%s", name, p, got, want)
	}
}

// trTurn is a turn as log --json gives it.
type trTurn struct {
	Turn   int    `json:"turn"`
	Before string `json:"before"`
	After  string `json:"after"`
	Open   bool   `json:"open"`
}

// trTurns returns the session's turns by number (log --json).
func (e *cliEnv) trTurns(args ...string) map[int]trTurn {
	e.t.Helper()
	var doc struct {
		Turns []trTurn `json:"turns"`
	}
	e.okJSON(&doc, append(args, "log")...)
	out := map[int]trTurn{}
	for _, t := range doc.Turns {
		out[t.Turn] = t
	}
	return out
}

// trMask replaces the ids of turn t (full and short) with <BEFORE> and
// <AFTER>.
func trMask(s string, t trTurn) string {
	return strings.NewReplacer(t.Before, "<BEFORE>", t.After, "<AFTER>", t.Before[:12], "<BEFORE>", t.After[:12], "<AFTER>").Replace(s)
}

// TestTurnGolden: show @2 and diff @2, text and --json, of a turn that
// modified, deleted, added, re-moded and re-typed files, added a
// directory, a binary file and a name that needs quoting.
func TestTurnGolden(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	e.extra = []string{"TZ=UTC", "TURNBACK_TEST_NOW=2026-11-22T09:00:00Z"}
	e.setup().ok("snap", "-m", "set up") // the turns are the setting, not the check
	e.write("a.txt", "one\ntwo\nthree\nfour\nfive\n")
	e.write("b.txt", "bye\n")
	e.writeBytes("bin.dat", []byte{0, 1, 2, 3})
	e.write("run.sh", "echo hi\n")
	e.write("old.txt", "a.txt\n")
	e.setup().ok("end")

	e.extra = []string{"TZ=UTC", "TURNBACK_TEST_NOW=2026-11-22T10:14:02Z"}
	e.setup().ok("snap", "-m", "rework the form \x1b[1m")
	e.write("a.txt", "one\nTWO\nthree\nfour\nfive\n")
	e.rm("b.txt")
	e.write("c.txt", "new\n")
	e.writeBytes("bin.dat", []byte{0, 1, 2, 3, 4})
	e.chmod("run.sh", 0o755)
	e.rm("old.txt")
	e.link("a.txt", "old.txt")
	e.write("sub/x.txt", "x\n")
	e.write("tab\tname.txt", "tab\n")
	e.extra = []string{"TZ=UTC", "TURNBACK_TEST_NOW=2026-11-22T10:15:30Z"}
	e.setup().ok("end")
	turns := e.setup().trTurns()
	t2 := turns[2]

	r := e.ok("show", "@2")
	r.check(t, "show @2")
	trGolden(t, "show.txt", trMask(r.stdout, t2))
	r = e.ok("--json", "show", "@2")
	trGolden(t, "show.json", trMask(r.stdout, t2))
	r = e.ok("diff", "@2")
	r.check(t, "diff @2")
	trGolden(t, "diff.txt", trMask(r.stdout, t2))
	// diff @N is diff @N^ @N.
	if d := e.ok("diff", "@2^", "@2"); d.stdout != r.stdout {
		t.Errorf("diff @2^ @2 differs from diff @2:\n%s\n%s", d.stdout, r.stdout)
	}
	r = e.ok("--json", "diff", "@2")
	trGolden(t, "diff.json", trMask(r.stdout, t2))

	// @N^ of show is the snapshot before the turn, as its id shows it.
	if a, b := e.ok("show", "@2^"), e.ok("show", t2.Before[:12]); a.stdout != b.stdout || !strings.HasPrefix(a.stdout, "snapshot "+t2.Before+"\n") {
		t.Errorf("show @2^:\n%s\nshow %s:\n%s", a.stdout, t2.Before[:12], b.stdout)
	}
	// A plain snapshot id still shows the snapshot.
	if r := e.ok("show", t2.After[:4]); !strings.HasPrefix(r.stdout, "snapshot "+t2.After+"\n") {
		t.Errorf("show %s:\n%s", t2.After[:4], r.stdout)
	}
	// log shows both ids of each turn.
	if r := e.ok("log"); !strings.Contains(r.stdout, "\n   2  "+t2.Before[:12]+"  "+t2.After[:12]+"  2026-11-22 10:14:02  +3 ~4 -1 ") {
		t.Errorf("log:\n%s", r.stdout)
	}
}

// TestTurnRestore: "restore D" with D a digit some snapshot id starts
// with exits 2 naming the rule and changes nothing; restore @2 and @2^
// make the folder exactly turn 2's after- and before-state.
func TestTurnRestore(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	e.write("a.txt", "zero\n")
	var states []treetest.Tree // states[n]: after turn n
	states = append(states, e.tree())
	digit := ""
	ip := e.setup() // the turns are the setting, not the check
	for n := 1; n <= 3 || (digit == "" && n <= 40); n++ {
		ip.ok("snap", "-m", "turn")
		e.write("a.txt", strings.Repeat("x", n)+"\n")
		if n == 2 {
			e.write("b/c.txt", "created by turn 2\n")
		}
		if n == 3 {
			e.rm("b")
			e.chmod("a.txt", 0o600)
		}
		var end struct {
			Snapshot string `json:"snapshot"`
		}
		ip.okJSON(&end, "end")
		states = append(states, e.tree())
		if c := end.Snapshot[0]; digit == "" && c >= '1' && c <= '9' {
			digit = string(c)
		}
	}
	if digit == "" {
		t.Fatal("no snapshot id starts with a digit from 1 to 9 in 40 turns")
	}
	now := e.tree()
	r := e.expect(2, "restore", digit)
	if !strings.Contains(r.stderr, "at least 4 hex digits") || !strings.Contains(r.stderr, "write @"+digit) {
		t.Errorf("restore %s: want the rule named:\n%s", digit, r)
	}
	var doc map[string]any
	r = e.expect(2, "--json", "restore", digit)
	cliOneJSON(t, r.stdout, &doc)
	if s, _ := doc["error"].(string); !strings.Contains(s, "at least 4 hex digits") {
		t.Errorf("--json restore %s: %s", digit, r.stdout)
	}
	e.same("after restore "+digit, now)

	e.ok("restore", "@2")
	e.same("after restore @2", states[2])
	e.ok("restore", "@2^")
	e.same("after restore @2^", states[1])
	// Spaces around a reference (" @3 "): a usage error, nothing done.
	r = e.expect(2, "restore", " @3 ")
	if r.stderr != "turnback: \" @3 \" is not a turn reference: remove the spaces around it (@3)\nRun 'turnback --help' for usage.\n" {
		t.Errorf("restore \" @3 \": %v", r)
	}
	e.same("after restore \" @3 \"", states[1])
}

// TestTurnRefHostile: malformed references are usage errors (exit 2)
// with one JSON document, turns that do not exist or have no
// after-state exit 1 naming why, never a panic, and nothing changes.
func TestTurnRefHostile(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	// The turns and the matrix run in this process (env_test.go): the
	// store is named, no daemon, nothing killed. The first rows also run
	// the binary.
	ip := e.setup()
	ip.ok("snap", "-m", "one")
	e.write("a.txt", "a\n")
	ip.ok("end")
	ip.ok("snap", "-m", "open")
	e.write("a.txt", "edited in the open turn\n")
	now := e.tree()
	for i, c := range []struct {
		ref  string
		code int
		says string
	}{
		{"@", 2, `"@" is not a turn reference: write @N`},
		{"@0", 2, "numbered from 1"},
		{"@-1", 2, "N must be a turn number"},
		{"@99999999999999999999", 2, "too large"},
		{"@1^^", 2, "only one ^"},
		{"@abc", 2, "N must be a turn number"},
		{"@1~1", 2, "N must be a turn number"},
		{"@ 1", 2, "N must be a turn number"},
		{"1", 2, "at least 4 hex digits (for turn 1, write @1)"},
		{"abc", 2, "at least 4 hex digits"},
		{" @1", 2, `" @1" is not a turn reference: remove the spaces around it (@1)`},
		{"@1^\n", 2, `"@1^\n" is not a turn reference: remove the spaces around it (@1^)`},
		{" ffff", 2, `" ffff" is not a snapshot id: remove the spaces around it (ffff)`},
		{"@3", 1, `no turn 3 in session "default": it has 2 turns, numbered 1 to 2`},
		{"@999999999999", 1, "no turn 999999999999"},
		{"@2", 1, `turn 2 of session "default" is open and has no after-state yet (@2^ is the state before it`},
	} {
		run := ip.run
		if i < 2 || c.code == 1 && c.ref == "@3" {
			run = e.run
		}
		for _, cmd := range [][]string{{"restore", c.ref}, {"show", c.ref}, {"diff", c.ref}, {"diff", c.ref, "@1"}} {
			r := run(cmd...)
			if r.code != c.code || !strings.Contains(r.stderr, c.says) || strings.Contains(r.stderr, "panic") {
				t.Errorf("want exit %d saying %q: %v", c.code, c.says, r)
			}
			r = run(append([]string{"--json"}, cmd...)...)
			var doc struct {
				Error string `json:"error"`
				Code  int    `json:"exit_code"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || doc.Code != c.code || !strings.Contains(doc.Error, c.says) {
				t.Errorf("--json: want exit %d saying %q: %v", c.code, c.says, r)
			}
		}
	}
	e.same("after the failed commands", now)
	// The open turn's before-state works.
	if r := e.ok("diff", "@2^"); !strings.Contains(r.stdout, "+edited in the open turn\n") {
		t.Errorf("diff @2^:\n%s", r)
	}
}

// TestTurnRefSession: @N names a turn of the session log shows: the one
// named (a prefix works), else the session of the folder's newest turn
// when default has none, said on stderr; an undone turn shows as undone.
func TestTurnRefSession(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	e.write("a.txt", "a\n")
	ip := e.setup() // the turns are the setting, not the check
	ip.ok("--session", "agent-1", "snap", "-m", "agent's turn")
	e.write("a.txt", "by the agent\n")
	ip.ok("--session", "agent-1", "end")
	r := e.ok("show", "@1")
	if !strings.HasPrefix(r.stdout, "turn 1 of session agent-1\nmessage  agent's turn\n") || !strings.HasPrefix(r.stderr, "using session agent-1") {
		t.Errorf("show @1 without a session:\n%s", r)
	}
	if r := e.ok("--session", "agent", "diff", "@1"); !strings.Contains(r.stdout, "-a\n+by the agent\n") {
		t.Errorf("--session agent diff @1:\n%s", r)
	}
	if r := e.ok("restore", "@1^"); !strings.HasPrefix(r.stderr, "using session agent-1") || string(e.read("a.txt")) != "a\n" {
		t.Errorf("restore @1^ without a session: a.txt is %q\n%s", e.read("a.txt"), r)
	}
	e.ok("restore", "@1")
	e.ok("--session", "agent-1", "undo")
	if r := e.ok("--session", "agent-1", "show", "@1"); !strings.HasPrefix(r.stdout, "turn 1 of session agent-1 (undone)\n") {
		t.Errorf("show @1 of an undone turn:\n%s", r)
	}
	e.ok("--session", "agent-1", "restore", "@1")
	if got := string(e.read("a.txt")); got != "by the agent\n" {
		t.Errorf("restore @1 of an undone turn: a.txt is %q", got)
	}
	// The default session, once it has a turn, is the one @N names.
	ip.ok("snap", "-m", "user's")
	e.write("b.txt", "b\n")
	ip.ok("end")
	if r := e.ok("show", "@1"); !strings.HasPrefix(r.stdout, "turn 1 of session default\nmessage  user's\n") || r.stderr != "" {
		t.Errorf("show @1 with default's turn:\n%s", r)
	}
}
