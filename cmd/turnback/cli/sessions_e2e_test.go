package cli

// End-to-end tests of finding a session: "turnback sessions", --session
// and TURNBACK_SESSION as a unique prefix, the session undo, redo, log and
// end pick when none is named, and log --all. Times are pinned with
// TURNBACK_TEST_NOW (the clock turns are stamped with and "now" is) and
// TZ=UTC, so the tables are compared byte for byte with the golden files
// in testdata/sessions (go test -run TestSessions -update rewrites them).

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata/sessions")

// Sessions of the recorded payloads (testdata/hooks).
const (
	ssClaude = "3f1c9a52-7d0e-4b8a-9c41-2e5d6f7a8b90"
	ssGemini = "9b2e7c14-55aa-4f0e-8d3b-61c0f2a9e7d5"
)

// at pins the clock and time zone of e's next commands to 2026-11-22
// hh:mm:ss UTC.
func (e *cliEnv) at(hhmmss string) {
	e.extra = []string{"TURNBACK_TEST_NOW=2026-11-22T" + hhmmss + "Z", "TZ=UTC"}
}

// ssGolden compares got with testdata/sessions/name (or rewrites it with
// -update).
func ssGolden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("..", "testdata", "sessions", name)
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

// ssClaudeTurn records one turn of Claude Code's conversation through its
// hooks: the prompt at start, the edit, Stop at end.
func (e *cliEnv) ssClaudeTurn(prompt, start, end string, edit func()) {
	e.t.Helper()
	e.at(start)
	e.hook("claude", hookPayload(e.t, prompt, e.dir), 0)
	edit()
	e.at(end)
	e.hook("claude", hookPayload(e.t, "claude_stop.json", e.dir), 0)
}

// TestSessionsFoundWithoutName is the case: turns recorded
// through Claude Code's hooks with its real session id are undone,
// redone and listed in that folder with no --session, each command saying
// which session it used; once a second agent is live, undo refuses, lists
// both and changes nothing.
func TestSessionsFoundWithoutName(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	e.write("README.md", "# my project\n")
	before := e.tree()
	e.ssClaudeTurn("claude_user_prompt_submit.json", "10:14:02", "10:15:30", func() {
		e.write("src/login.html", "<form></form>\n")
		e.write("README.md", "# my project\n\nWith a login form.\n")
	})
	after := e.tree()
	const note = "using session 3f1c9a52 (claude, last turn 2 min ago)\n"

	e.at("10:17:45")
	r := e.ok("undo")
	if r.stderr != note || !strings.HasPrefix(r.stdout, "undid 1 turn: 1 restored, 2 deleted, 0 brought back\n") {
		t.Errorf("undo:\n%s", r)
	}
	e.same("after undo", before)
	r = e.ok("redo")
	if r.stderr != note || !strings.HasPrefix(r.stdout, "redid 1 turn: 1 restored, 0 deleted, 2 brought back\n") {
		t.Errorf("redo:\n%s", r)
	}
	e.same("after redo", after)
	r = e.ok("log")
	wantLog := regexp.MustCompile("^" + regexp.QuoteMeta("session "+ssClaude+" (claude)\n   1  ") + "[0-9a-f]{12}  [0-9a-f]{12}" +
		regexp.QuoteMeta("  2026-11-22 10:14:02  +1 ~1 -0         Add a login form to the start page\n") + "$")
	if r.stderr != note || !wantLog.MatchString(r.stdout) {
		t.Errorf("log:\n%s\nwant stdout matching %s", r, wantLog)
	}
	// --json: the note on stderr, one document on stdout.
	var doc hookLogDoc
	r = e.okJSON(&doc, "log")
	if r.stderr != note || doc.Session != ssClaude || len(doc.Turns) != 1 {
		t.Errorf("log --json: %+v\n%s", doc, r)
	}
	// end: the conversation's turn is closed already.
	if r := e.ok("end"); r.stderr != note || r.stdout != "no open turn in session "+ssClaude+": nothing recorded\n" {
		t.Errorf("end:\n%s", r)
	}

	// Gemini CLI starts a turn in the same folder and works on; meanwhile
	// Claude's second turn ends. Claude's is the newest turn and Gemini's
	// is open right now: the commands that change files refuse, list both
	// and change nothing; log shows both, newest first.
	e.at("10:18:00")
	e.hook("gemini", hookPayload(t, "gemini_before_agent.json", e.dir), 0)
	e.write("src/test.js", "test()\n")
	e.at("10:18:30")
	e.exec("", hookPayload(t, "claude_user_prompt_submit_2.json", e.dir), "hook", "claude") // tells the model of the undo, redo
	e.write("src/style.css", "body {}\n")
	e.at("10:19:00")
	e.hook("claude", hookPayload(t, "claude_stop.json", e.dir), 0)
	busy := e.tree()
	e.at("10:20:00")
	wantErr := "turnback: " + ssClaude + " (claude, last turn 1 min ago) has the folder's newest turn, but " +
		ssGemini + " (gemini, last turn 2 min ago) has a turn open right now (an agent may be working); " +
		"name one with --session (a unique prefix is enough)\nRun 'turnback --help' for usage.\n"
	for _, cmd := range []string{"undo", "redo", "end"} {
		if r := e.expect(2, cmd); r.stdout != "" || r.stderr != wantErr {
			t.Errorf("%s with Gemini's turn open: stderr\n%s\nwant\n%s", cmd, r, wantErr)
		}
	}
	e.same("after the refused commands", busy)
	if r := e.ok("log"); r.stderr != "using session 3f1c9a52 (claude, last turn 1 min ago)\n" ||
		!strings.HasPrefix(r.stdout, "session "+ssClaude+" (claude)\n") || !strings.Contains(r.stdout, "\n\nsession "+ssGemini+" (gemini)\n") {
		t.Errorf("log with Gemini's turn open: want both sessions, Claude's first\n%s", r)
	}
	var errDoc struct {
		Error    string `json:"error"`
		ExitCode int    `json:"exit_code"`
		Sessions []struct {
			Name, Agent string
			Open        bool
		} `json:"sessions"`
	}
	r = e.expect(2, "--json", "undo")
	cliOneJSON(t, r.stdout, &errDoc)
	if errDoc.ExitCode != 2 || len(errDoc.Sessions) != 2 || errDoc.Sessions[0].Name != ssClaude || errDoc.Sessions[0].Agent != "claude" ||
		errDoc.Sessions[1].Name != ssGemini || !errDoc.Sessions[1].Open {
		t.Errorf("undo --json with Gemini's turn open: %+v\n%s", errDoc, r)
	}
	// Naming one still works, by a prefix.
	e.ok("--session", "3f1c", "undo")
	e.same("claude's turn undone beside gemini's edit", busy.Without("src/style.css"))
	// A command run for an agent (as the hooks run theirs, also through a
	// daemon) never picks another session, nor takes a prefix: an end
	// event without a session id must not end Gemini's turn.
	if r := e.ok("--agent", "claude", "end"); r.stderr != "" || r.stdout != "no open turn in session default: nothing recorded\n" {
		t.Errorf("--agent end:\n%s", r)
	}
	var none hookLogDoc
	if e.okJSON(&none, "--agent", "claude", "--session", "9b2e", "--json", "log"); none.Session != "9b2e" || len(none.Turns) != 0 {
		t.Errorf("--agent --session 9b2e log: %+v", none)
	}
	var gem hookLogDoc
	if e.okJSON(&gem, "--session", "9b2e", "log"); len(gem.Turns) != 1 || !gem.Turns[0].Open {
		t.Errorf("gemini's turn after the agent's end: %+v", gem)
	}
	// Once Gemini's turn has ended, nobody works: sessions one after the
	// other are no ambiguity.
	e.at("10:28:01")
	e.hook("gemini", hookPayload(t, "gemini_after_agent.json", e.dir), 0)
	if r := e.ok("undo"); r.stderr != "using session 9b2e7c14 (gemini, last turn just now)\n" ||
		!strings.HasPrefix(r.stdout, "undid 1 turn: ") {
		t.Errorf("undo after Gemini's turn ended:\n%s", r)
	}
	// The default session, once it has a turn, is used without a note.
	e.at("10:29:00")
	e.ok("--session", "default", "snap", "-m", "mine")
	if r := e.ok("log"); r.stderr != "" || !strings.HasPrefix(r.stdout, "session default\n") {
		t.Errorf("log with default's turn:\n%s", r)
	}
}

// TestSessionsPrefix: --session and TURNBACK_SESSION take a unique
// prefix; an exact name wins over a longer one; an ambiguous prefix is
// exit 2 listing the candidates by their full, quoted names; a prefix
// that matches nothing is a session of that name (snap starts it, undo
// and log find nothing in it).
func TestSessionsPrefix(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	turn := func(session, at, file string) {
		t.Helper()
		e.at(at)
		ip := e.setup() // the turns are the setting, not the check
		ip.ok("--session", session, "snap", "-m", "by "+session)
		e.write(file, session+"\n")
		ip.ok("--session", session, "end")
	}
	turn("agent", "09:00:00", "a.txt")
	turn("agent-2", "09:01:00", "b.txt")
	turn(`q"uote`, "09:02:00", "c.txt")
	e.at("12:00:00")

	for _, c := range []struct{ session, want string }{
		{"agent", "agent"}, {"agent-", "agent-2"}, {"q", `"q\"uote"`}, {`q"`, `"q\"uote"`},
	} {
		r := e.ok("--session", c.session, "log")
		if first, _, _ := strings.Cut(r.stdout, "\n"); first != "session "+c.want || r.stderr != "" {
			t.Errorf("--session %s log: want session %s\n%s", c.session, c.want, r)
		}
	}
	e.extra = append(e.extra, "TURNBACK_SESSION=agent-")
	if r := e.ok("log"); !strings.HasPrefix(r.stdout, "session agent-2\n") {
		t.Errorf("TURNBACK_SESSION=agent- log:\n%s", r)
	}
	e.at("12:00:00")
	want := "turnback: session ag is ambiguous: 2 sessions start with it: agent-2 (last turn 2 h ago), agent (last turn 3 h ago); give more of the name\n" +
		"Run 'turnback --help' for usage.\n"
	for _, args := range [][]string{{"--session", "ag", "undo"}, {"--session", "ag", "snap"}, {"--session", "ag", "status"}} {
		if r := e.expect(2, args...); r.stdout != "" || r.stderr != want {
			t.Errorf("%s:\n%s\nwant stderr\n%s", strings.Join(args, " "), r, want)
		}
	}
	e.extra = append(e.extra, "TURNBACK_SESSION=a")
	if r := e.expect(2, "undo"); r.stderr != strings.Replace(want, "session ag ", "session a ", 1) {
		t.Errorf("TURNBACK_SESSION=a undo:\n%s", r)
	}
	e.at("12:00:00")
	tree := e.tree()
	// Matching nothing: that name, with no turns.
	if r := e.ok("--session", "zz", "undo"); r.stdout != "nothing to undo\n" {
		t.Errorf("--session zz undo:\n%s", r)
	}
	if r := e.ok("--session", "zz", "log"); r.stdout != "no turns in session zz\n" {
		t.Errorf("--session zz log:\n%s", r)
	}
	e.same("after commands on sessions that do not exist", tree)
	e.ok("--session", "zz", "snap")
	var doc hookLogDoc
	e.okJSON(&doc, "--session", "zz", "log")
	if doc.Session != "zz" || len(doc.Turns) != 1 {
		t.Errorf("snap --session zz made %+v", doc)
	}
}

// TestSessionsTables: the human tables of sessions and log --all, byte
// for byte (golden files; log's snapshot ids masked), and their --json
// documents. The sessions: a
// Claude Code conversation with an undone turn, a Gemini CLI one with an
// open turn, the default session from the command line, a session named
// with a quote, and one without turns left.
func TestSessionsTables(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	e.write("README.md", "# my project\n")
	e.at("08:00:00")
	if r := e.ok("sessions"); r.stdout != "no sessions\n" {
		t.Errorf("sessions of a new folder:\n%s", r)
	}
	if r := e.ok("log", "--all"); r.stdout != "no turns in any session\n" {
		t.Errorf("log --all of a new folder:\n%s", r)
	}
	e.at("09:00:00")
	e.ok("snap", "-m", "rename the config")
	e.write("config.toml", "x = 1\n")
	e.at("09:01:10")
	e.ok("end")
	e.ssClaudeTurn("claude_user_prompt_submit.json", "10:14:02", "10:15:30", func() { e.write("src/login.html", "<form></form>\n") })
	e.ssClaudeTurn("claude_user_prompt_submit_2.json", "10:16:00", "10:17:05", func() { e.write("src/login.css", ".a {}\n") })
	e.at("10:18:00")
	e.ok("--session", "3f", "undo")
	e.at("10:19:00")
	e.hook("gemini", hookPayload(t, "gemini_before_agent.json", e.dir), 0)
	e.write("src/test.js", "test()\n")
	e.at("10:20:00")
	e.ok("--session", `q"uote`, "snap", "--agent", "my\x1bagent", "-m", "with \x1b[31m colour")
	e.ok("--session", "empty", "snap", "-m", "changes nothing")
	e.at("10:21:00")
	e.ok("--session", "empty", "end") // dropped: no turns left

	e.at("10:25:00")
	r := e.ok("sessions")
	r.check(t, "sessions")
	ssGolden(t, "sessions.txt", r.stdout)
	r = e.ok("log", "--all")
	r.check(t, "log --all")
	// Snapshot ids hash the owners and modes of the files: masked.
	ssGolden(t, "log_all.txt", regexp.MustCompile(`\b[0-9a-f]{12}\b`).ReplaceAllString(r.stdout, "xxxxxxxxxxxx"))

	r = e.ok("--json", "sessions")
	ssGolden(t, "sessions.json", r.stdout)

	var all struct {
		Sessions []struct{ Name string } `json:"sessions"`
		Turns    []struct {
			Session string `json:"session"`
			Turn    int    `json:"turn"`
			Undone  bool   `json:"undone"`
			Open    bool   `json:"open"`
			Started string `json:"started"`
			Message string `json:"message"`
		} `json:"turns"`
	}
	e.okJSON(&all, "log", "--all")
	got := ""
	for _, s := range all.Sessions {
		got += fmt.Sprintf("session %q\n", s.Name)
	}
	for _, tn := range all.Turns {
		got += fmt.Sprintf("%q %d undone=%t open=%t %q %q\n", tn.Session, tn.Turn, tn.Undone, tn.Open, tn.Started, tn.Message)
	}
	ssGolden(t, "log_all_json.txt", got)
}

// TestSessionsThroughDaemon: with a watch daemon serving the folder, a
// hook's snap (forwarded as a command line) still records its agent, and
// the session choice, its note and a prefix work as without one.
func TestSessionsThroughDaemon(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the watch daemon's tests are written for inotify")
	}
	e := newHookEnv(t)
	e.write("README.md", "# my project\n")
	e.ok("watch", "--detach")
	t.Cleanup(func() { e.run("watch", "--stop") })
	e.ssClaudeTurn("claude_user_prompt_submit.json", "10:14:02", "10:15:30", func() { e.write("src/login.html", "<form></form>\n") })
	e.at("10:16:00")
	if r := e.ok("sessions"); !strings.Contains(r.stdout, "\n3f1c9a52  claude      1     -  2026-11-22 10:15:30  Add a login form") {
		t.Errorf("sessions through the daemon:\n%s", r)
	}
	if r := e.ok("undo"); r.stderr != "using session 3f1c9a52 (claude, last turn just now)\n" || !strings.HasPrefix(r.stdout, "undid 1 turn") {
		t.Errorf("undo through the daemon:\n%s", r)
	}
	if r := e.ok("--session", "3f", "log"); !strings.Contains(r.stdout, " undone ") {
		t.Errorf("log --session 3f through the daemon:\n%s", r)
	}
	var st struct {
		Requests int `json:"requests"`
	}
	e.okJSON(&st, "watch", "--status")
	if st.Requests < 5 { // the hook's snap and end, sessions, undo, log
		t.Errorf("the daemon served %d requests; the commands did not go through it", st.Requests)
	}
}
