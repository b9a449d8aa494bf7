package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/cas/s3/s3test"
)

// agentSession is a Claude Code session id, as its hook names sessions.
const agentSession = "429a7805-aaaa-bbbb-cccc-1234567890ab"

// agentTurn records one turn of the agent's session that writes name.
func agentTurn(e *cliEnv, name, data string) {
	e.t.Helper()
	e.ok("--agent", "claude", "--session", agentSession, "snap")
	e.write(name, data)
	e.ok("--agent", "claude", "--session", agentSession, "end")
}

// matchFirst fails unless the first line of s matches re and the rest
// is exactly rest.
func matchFirst(t *testing.T, r cliResult, re, rest string) {
	t.Helper()
	first, after, _ := strings.Cut(r.stdout, "\n")
	if !regexp.MustCompile("^"+re+"$").MatchString(first) || after != rest {
		t.Fatalf("want first line %q, then %q; got %s", re, rest, r)
	}
}

// TestRemoteCLIAgentSession (issue 36 item 4): in an agent's folder,
// push with no --session pushes the agent's session (it failed "no such
// session: default"), saying which; clone without --session takes the
// remote's session of the newest turn, and --session takes a prefix of
// the remote's names; pull in the clone pulls the clone's session, and
// in a store with no turn the remote's newest. remote show prints no
// session note.
func TestRemoteCLIAgentSession(t *testing.T) {
	srv := s3test.Start(t)
	const url = "s3://tb-agent-pick/p"
	a := remoteEnv(t, srv, "a")
	a.ok("remote", "set", url, "--create")
	a.write("f.txt", "zero\n")
	agentTurn(a, "f.txt", "one\n")
	const note = "using session 429a7805 (claude, last turn just now)\n"
	r := a.run("push")
	matchFirst(t, r, "pushed "+agentSession+`: 4 objects in \d+ packs, .* sent, 0 objects \(0 B\) already there`, "")
	if r.code != 0 || r.stderr != note {
		t.Fatalf("push in the agent's folder: %s", r)
	}
	if r := a.ok("remote", "show"); r.stderr != "" {
		t.Fatalf("remote show: %s", r)
	}
	if r := a.ok("push", "--session", "429a"); !strings.HasPrefix(r.stdout, "pushed "+agentSession+": 0 objects") || r.stderr != "" {
		t.Fatalf("push --session 429a: %s", r)
	}

	b := remoteEnv(t, srv, "clone")
	r = b.exec(b.base, nil, "clone", url, b.dir)
	matchFirst(t, r, "cloned "+agentSession+" into "+regexp.QuoteMeta(b.dir)+`: 1 turn, 4 objects, .* received`, "")
	if r.code != 0 || r.stderr != "using the remote's session 429a7805 (claude, last turn just now)\n" {
		t.Fatalf("clone without --session: %s", r)
	}
	if got := string(b.read("f.txt")); got != "one\n" {
		t.Fatalf("clone: f.txt %q", got)
	}
	c := remoteEnv(t, srv, "clone2")
	if r := c.exec(c.base, nil, "clone", url, c.dir, "--session", "429a"); r.code != 0 || !strings.HasPrefix(r.stdout, "cloned "+agentSession+" into ") || r.stderr != "" {
		t.Fatalf("clone --session 429a: %s", r)
	}

	agentTurn(a, "f.txt", "two\n")
	a.ok("push")
	r = b.run("pull")
	matchFirst(t, r, "pulled "+agentSession+`: turn 2, \d+ objects, .* received`,
		"the folder is unchanged: it lacks turn 2 (status and diff show only the edits made in it); next:\n"+
			"  turnback pull --apply   bring in what they changed; edits made in the folder stay (exit 3 if one is in the way)\n"+
			"  turnback restore @2     make the folder exactly the session's last state (what it holds goes into a checkpoint)\n")
	if r.code != 0 || r.stderr != note {
		t.Fatalf("pull in the clone: %s", r)
	}
	if r := c.ok("pull", "--session", "429a"); !strings.HasPrefix(r.stdout, "pulled "+agentSession+": turn 2, ") || r.stderr != "" {
		t.Fatalf("pull --session 429a: %s", r)
	}

	d := remoteEnv(t, srv, "d")
	d.ok("remote", "set", url)
	r = d.run("pull")
	matchFirst(t, r, "pulled "+agentSession+`: 2 turns, \d+ objects, .* received`, "")
	if r.code != 0 || r.stderr != "using the remote's session 429a7805 (claude, last turn just now)\n" {
		t.Fatalf("pull into a store with no turn: %s", r)
	}
	if r := d.run("pull", "--session", "nosuch"); r.code != 1 || r.stderr != "turnback: the remote has no such session: nosuch (s3://tb-agent-pick/p/)\n" {
		t.Fatalf("pull --session nosuch: %s", r)
	}

	// A prefix two of the remote's sessions start with: exit 2, listing them.
	const other = "429a0000-1111-2222-3333-444455556666"
	a.ok("--agent", "claude", "--session", other, "snap")
	a.write("f.txt", "other\n")
	a.ok("--agent", "claude", "--session", other, "end")
	a.ok("push", "--session", "429a0")
	e := remoteEnv(t, srv, "clone3")
	r = e.exec(e.base, nil, "clone", url, e.dir, "--session", "429a")
	if r.code != 2 || r.stdout != "" || r.stderr != "turnback: session 429a is ambiguous: 2 sessions start with it: "+
		other+" (claude, last turn just now), "+agentSession+" (claude, last turn just now); give more of the name\n"+
		"Run 'turnback --help' for usage.\n" {
		t.Fatalf("clone --session 429a of two: %s", r)
	}
	if ents, err := os.ReadDir(e.dir); err != nil || len(ents) != 0 {
		t.Fatalf("the refused clone wrote the folder: %v %v", ents, err)
	}
}

// TestRemoteCLISessions (issue 36 item 5): remote sessions lists the
// remote's sessions newest first with agent, turns, last turn and the
// size of the packs their head names; --json the same, with the head.
func TestRemoteCLISessions(t *testing.T) {
	srv := s3test.Start(t)
	const url = "s3://tb-sessions/p"
	a := remoteEnv(t, srv, "a")
	a.ok("remote", "set", url, "--create")
	if r := a.ok("remote", "sessions"); r.stdout != "no sessions on "+url+"\n" || r.stderr != "" {
		t.Fatalf("remote sessions of an empty remote: %s", r)
	}
	a.write("f.txt", "zero\n")
	for _, v := range []string{"one\n", "two\n"} {
		a.ok("--session", "s", "snap", "-m", "turn "+strings.TrimSpace(v))
		a.write("f.txt", v)
		a.ok("--session", "s", "end")
	}
	a.ok("--session", "s", "push")
	type doc struct {
		Remote   string `json:"remote"`
		Sessions []struct {
			Name, Short, Agent, LastTurn, LastMessage, Head string
			Turns, Redo                                     int
			Open                                            bool
			Bytes                                           int64
		} `json:"sessions"`
	}
	var one doc
	r := a.ok("remote", "sessions", "--json")
	if err := json.Unmarshal([]byte(strings.ReplaceAll(r.stdout, "_", "")), &one); err != nil {
		t.Fatal(err)
	}
	if len(one.Sessions) != 1 || one.Remote != url {
		t.Fatalf("one session: %s", r.stdout)
	}
	s := one.Sessions[0]
	if s.Name != "s" || s.Short != "s" || s.Agent != "" || s.Turns != 2 || s.Redo != 0 || s.Open || s.LastMessage != "turn two" ||
		!strings.HasPrefix(s.Head, url+"/heads/s/") || s.Bytes != bucketBytes(t, srv, "tb-sessions", "p/packs") {
		t.Fatalf("session s: %+v (packs: %d bytes)", s, bucketBytes(t, srv, "tb-sessions", "p/packs"))
	}
	time.Sleep(1100 * time.Millisecond) // the agent's turn is newer, to the second
	agentTurn(a, "g.txt", "agent\n")
	a.ok("push", "--session", agentSession)
	var two doc
	r = a.ok("remote", "sessions", "--json")
	if err := json.Unmarshal([]byte(strings.ReplaceAll(r.stdout, "_", "")), &two); err != nil {
		t.Fatal(err)
	}
	if len(two.Sessions) != 2 || two.Sessions[0].Name != agentSession || two.Sessions[0].Short != "429a7805" ||
		two.Sessions[0].Agent != "claude" || two.Sessions[0].Turns != 1 || two.Sessions[1].Name != "s" || two.Sessions[1].Bytes != s.Bytes {
		t.Fatalf("two sessions: %s", r.stdout)
	}
	stamp := func(v string) string {
		tm, err := time.Parse(time.RFC3339, v)
		if err != nil {
			t.Fatal(err)
		}
		return tm.In(time.Local).Format("2006-01-02 15:04:05")
	}
	var rows []string
	for _, x := range two.Sessions {
		agent := x.Agent
		if agent == "" {
			agent = "-"
		}
		rows = append(rows, fmt.Sprintf("%-8s  %-6s  %5d  %s  %s", x.Short, agent, x.Turns, stamp(x.LastTurn), humanBytes(x.Bytes)))
	}
	want := "SESSION   AGENT   TURNS  LAST TURN            SIZE\n" + rows[0] + "\n" + rows[1] + "\n"
	if r := a.ok("remote", "sessions"); r.stdout != want || r.stderr != "" {
		t.Fatalf("remote sessions:\n%s\nwant:\n%s", r, want)
	}

	// A damaged head fails the listing, naming it.
	head := two.Sessions[1].Head
	if err := os.WriteFile(filepath.Join(srv.Root, strings.TrimPrefix(head, "s3://")), []byte("{not a head"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := a.run("remote", "sessions"); r.code != 1 || r.stdout != "" || !strings.HasPrefix(r.stderr, "turnback: ") ||
		!strings.HasSuffix(r.stderr, " ("+head+")\n") {
		t.Fatalf("remote sessions with a damaged head: %s", r)
	}
}

// humanBytes is termout.HumanBytes for the sizes of a small test.
func humanBytes(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/1024)
}
