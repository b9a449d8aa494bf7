package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/turnback/turnback/internal/testtier"
)

// TestRemoteCLIPullEndedWarns: a turn started after a pull and before
// pull --apply ends the pending apply. The snap says so once on stderr
// (it was silent), naming the session, the pulled turn and the restore
// that still brings it in; --json carries it as "pull_ended". The next
// snap says nothing, and the named restore does bring the turn in.
func TestRemoteCLIPullEndedWarns(t *testing.T) {
	testtier.Slow(t)
	const url = "s3://tb-pull-ended/p"
	srv, a := remoteOrigin(t, url)
	a.write("f.txt", "zero\n")
	pushTurn(a, map[string]string{"f.txt": "one\n"}, "--session", "s")
	b := remoteClone(t, srv, url, "s")
	pushTurn(a, map[string]string{"f.txt": "two\n"}, "--session", "s")
	pushTurn(a, map[string]string{"t.txt": "tee\n"}, "--session", "t")

	b.ok("--session", "s", "pull")
	warn := func(session, turns string, turn int, restore string) string {
		return pullEndedWarn(cliName(b), session, turns, turn, restore) + "\n"
	}
	r := b.ok("--session", "s", "snap")
	want := warn("s", "turn 2", 3, "@2")
	rest, found := strings.CutPrefix(r.stderr, want)
	if !found || !regexp.MustCompile(`^turn 3 of session s started: 1 files, .*\n$`).MatchString(rest) {
		t.Fatalf("snap after the pull: want stderr %q then the turn line; got %s", want, r)
	}
	if r := b.ok("--session", "s", "snap", "-m", "again"); strings.Contains(r.stderr, "warning") {
		t.Fatalf("the second snap warns again: %s", r)
	}
	var doc pullEndedDoc
	// A session the store did not have: its pulled turn 1, then turn 2
	// started here.
	b.ok("--session", "t", "pull")
	r = b.okJSON(&doc, "--session", "t", "snap")
	if r.stderr != warn("t", "turn 1", 2, "@1") || doc.PullEnded == nil || doc.PullEnded.Session != "t" ||
		len(doc.PullEnded.Turns) != 1 || doc.PullEnded.Turns[0] != 1 || doc.PullEnded.Restore != "@1" {
		t.Fatalf("snap --json after the pull: %+v %s", doc.PullEnded, r)
	}
	if r := b.okJSON(&doc, "--session", "t", "snap", "-m", "again"); r.stderr != "" || strings.Contains(r.stdout, "pull_ended") {
		t.Fatalf("the second snap --json: %s", r)
	}
	b.ok("--session", "s", "restore", "@2")
	if got := string(b.read("f.txt")); got != "two\n" {
		t.Fatalf("restore @2: f.txt %q", got)
	}
}

// TestHookPullEndedTellsModel: an agent's prompt hook whose snap ends a
// pull's pending apply says so: on stderr, to the user as the hook's
// message, and to the model after what undo and redo changed.
func TestHookPullEndedTellsModel(t *testing.T) {
	testtier.Slow(t)
	const url = "s3://tb-pull-ended-hook/p"
	srv, a := remoteOrigin(t, url)
	b := newHookEnv(t)
	b.extra = srv.Env()
	prompt := hookPayload(t, "codex_user_prompt_submit.json", b.dir)
	sid := sessionInPayload(t, prompt)
	pushTurn(a, map[string]string{"f.txt": "one\n"}, "--session", sid)

	b.write("g.txt", "mine\n")
	b.ok("snap")
	b.ok("remote", "set", url)
	b.ok("--session", sid, "pull")
	r := b.exec("", prompt, "hook", "codex")
	warn := pullEndedWarn("turnback -C "+b.dir, sid, "turn 1", 2, "@1")
	var out struct {
		SystemMessage      string `json:"systemMessage"`
		HookSpecificOutput struct {
			HookEventName, AdditionalContext string
		}
	}
	cliOneJSON(t, r.stdout, &out)
	if r.code != 0 || r.stderr != warn+"\n" || out.SystemMessage != warn ||
		out.HookSpecificOutput.HookEventName != "UserPromptSubmit" || out.HookSpecificOutput.AdditionalContext != warn {
		t.Fatalf("the prompt hook after a pull: %+v\n%s", out, r)
	}
	if r := b.exec("", prompt, "hook", "codex"); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("the next prompt hook: %s", r)
	}
}

// TestRemoteCLIPullEndedThroughDaemon: with a watch daemon serving the
// store, the snap runs in it and its answer still carries the warning
// and "pull_ended".
func TestRemoteCLIPullEndedThroughDaemon(t *testing.T) {
	testtier.Slow(t)
	const url = "s3://tb-pull-ended-daemon/x"
	srv, a := remoteOrigin(t, url)
	a.write("f.txt", "one\n")
	pushTurn(a, map[string]string{"f.txt": "two\n"}, "--session", "s")
	b := remoteCloneDaemon(t, srv, url, "s")
	pushTurn(a, map[string]string{"f.txt": "three\n"}, "--session", "s")
	b.ok("--session", "s", "pull")
	var doc pullEndedDoc
	r := b.okJSON(&doc, "--session", "s", "snap")
	want := pullEndedWarn(cliName(b), "s", "turn 2", 3, "@2") + "\n"
	if r.stderr != want || doc.PullEnded == nil || doc.PullEnded.Restore != "@2" || len(doc.PullEnded.Turns) != 1 {
		t.Fatalf("snap through the daemon: %+v\nwant stderr %q\n%s", doc.PullEnded, want, r)
	}
}
