package cli

// The agent experience at its edges: a new user wires Claude Code,
// drives the built binary through the hooks with the recorded payloads,
// and types /undo through the command file init wrote.

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// edgeSessionB is a second Claude Code conversation in the same folder.
const edgeSessionB = "bbbbbbbb-0000-4000-8000-000000000000"

// edgeAsSession is a recorded Claude payload of conversation sid.
func edgeAsSession(t *testing.T, payload []byte, sid string) []byte {
	t.Helper()
	old := payloadSession(t, payload)
	return bytes.ReplaceAll(payload, []byte(old), []byte(sid))
}

// edgeClaudeSlash runs the command file's line for /name, as Claude Code
// runs it: through sh, in the shell's current folder wd, with the
// project folder in CLAUDE_PROJECT_DIR.
func edgeClaudeSlash(t *testing.T, e *cliEnv, wd, project, name, sid string) cliResult {
	t.Helper()
	name, args, _ := strings.Cut(name, " ")
	line := iaClaudeCommandLine(t, e, name, sid, args)
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = wd
	cmd.Env = append(e.environ(), "CLAUDE_PROJECT_DIR="+project, "CLAUDECODE=1", "CLAUDE_SESSION_ID="+sid)
	return cliWait(t, cmd, nil, []string{"sh", "-c", line})
}

func edgeSkipWindows(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("runs the command line through sh")
	}
}

// edgeOverlap starts two Claude Code conversations in a new folder: A
// starts and writes x.txt, B (edgeSessionB) starts and writes y.txt,
// then A stops. It returns the folder, A's id and the stop payload.
func edgeOverlap(t *testing.T) (e *cliEnv, sidA string, stop []byte) {
	t.Helper()
	e = newHookEnv(t)
	e.write("README.md", "# my project\n")
	e.ok("init", "--claude")
	promptA := hookPayload(t, "claude_user_prompt_submit.json", e.dir)
	sidA = payloadSession(t, promptA)
	promptB := edgeAsSession(t, hookPayload(t, "claude_user_prompt_submit_2.json", e.dir), edgeSessionB)
	stop = hookPayload(t, "claude_stop.json", e.dir)
	e.hook("claude", promptA, 0)
	e.write("x.txt", "x by A\n")
	e.hook("claude", promptB, 0)
	e.write("y.txt", "y by B\n")
	e.hook("claude", stop, 0)
	return e, sidA, stop
}

// TestOverlapUndoKeepsOtherSession: two Claude Code conversations
// work in one folder at once. A starts, writes x.txt; B starts, writes
// y.txt; A stops, then B. A's /undo must not delete B's y.txt (guide.md:
// "two agents do not undo each other"): it either leaves y.txt or
// changes nothing and says why.
func TestOverlapUndoKeepsOtherSession(t *testing.T) {
	edgeSkipWindows(t)
	t.Parallel()
	e, sidA, stop := edgeOverlap(t)
	e.hook("claude", edgeAsSession(t, stop, edgeSessionB), 0)

	r := edgeClaudeSlash(t, e, e.dir, e.dir, "undo", sidA)
	if r.code != 0 || strings.TrimSpace(r.stdout) == "" {
		t.Fatalf("A's /undo: want exit 0 and a report\n%s", r)
	}
	if got, err := os.ReadFile(e.path("y.txt")); err != nil || string(got) != "y by B\n" {
		t.Errorf("A's /undo changed y.txt, which conversation B wrote (read: %q, %v)\n%s", got, err, r)
	}
	if !strings.Contains(r.stdout, "/undo changed nothing: this file was also changed by another conversation's turn that ran at the same time") ||
		!strings.Contains(r.stdout, "y.txt: also changed by turn 1 of session bbbbbbbb, which ran at the same time") ||
		!strings.Contains(r.stdout, "/undo --force") || strings.Contains(r.stdout, "--merge") {
		t.Errorf("A's /undo does not say why, and what to type:\n%s", r)
	}
	// Forced, A's undo takes both back; B's file is in the checkpoint,
	// and A's /redo brings both back.
	if r := edgeClaudeSlash(t, e, e.dir, e.dir, "undo --force", sidA); r.code != 0 {
		t.Fatalf("/undo --force:\n%s", r)
	}
	for _, f := range []string{"x.txt", "y.txt"} {
		if _, err := os.Lstat(e.path(f)); err == nil {
			t.Errorf("/undo --force left %s", f)
		}
	}
	edgeClaudeSlash(t, e, e.dir, e.dir, "redo", sidA)
	if got, err := os.ReadFile(e.path("y.txt")); err != nil || string(got) != "y by B\n" {
		t.Errorf("/redo did not bring y.txt back: %q, %v", got, err)
	}
}

// TestOverlapUndoKeepsOpenSession: as TestOverlapUndoKeepsOtherSession,
// but B's turn is still open when A types /undo: B's file stays, and
// B's turn, once it ends, still holds it.
func TestOverlapUndoKeepsOpenSession(t *testing.T) {
	edgeSkipWindows(t)
	t.Parallel()
	e, sidA, stop := edgeOverlap(t)
	r := edgeClaudeSlash(t, e, e.dir, e.dir, "undo", sidA)
	if !strings.Contains(r.stdout, "y.txt: also changed by turn 1 of session bbbbbbbb") {
		t.Errorf("A's /undo with B working:\n%s", r)
	}
	// A undoes its own path alone.
	if r := edgeClaudeSlash(t, e, e.dir, e.dir, "undo --path x.txt", sidA); r.code != 0 {
		t.Fatalf("/undo --path x.txt:\n%s", r)
	}
	if _, err := os.Lstat(e.path("x.txt")); err == nil {
		t.Errorf("/undo --path x.txt left x.txt")
	}
	e.hook("claude", edgeAsSession(t, stop, edgeSessionB), 0)
	if got, err := os.ReadFile(e.path("y.txt")); err != nil || string(got) != "y by B\n" {
		t.Errorf("y.txt after both: %q, %v", got, err)
	}
	if doc := e.log(edgeSessionB); len(doc.Turns) != 1 || doc.Turns[0].Added < 1 {
		t.Errorf("B's turn: %+v", doc)
	}
}

// TestSlashUndoAfterCdIntoNestedStore: lib/ has its own store
// (another session worked there). Claude Code's shell keeps a cd inside
// the project, so after the agent ran "cd lib" the command file's
// "turnback undo" starts in lib/. The hooks record into the project's
// store (CLAUDE_PROJECT_DIR); /undo must undo this conversation's turn
// there, not the newest turn of lib's store.
func TestSlashUndoAfterCdIntoNestedStore(t *testing.T) {
	edgeSkipWindows(t)
	t.Parallel()
	e := newHookEnv(t)
	e.write("README.md", "# my project\n")
	e.write("lib/lib.go", "package lib\n")
	lib := e.path("lib")
	// Another session's history in lib's own store.
	e.exec(lib, nil, "--session", "other", "snap", "-m", "lib work")
	e.write("lib/extra.go", "package lib // other session\n")
	if r := e.exec(lib, nil, "--session", "other", "end"); r.code != 0 {
		t.Fatalf("end in lib:\n%s", r)
	}
	e.ok("init", "--claude")
	e.extra = append(e.extra, "CLAUDE_PROJECT_DIR="+e.dir)
	prompt := hookPayload(t, "claude_user_prompt_submit.json", e.dir)
	sid := payloadSession(t, prompt)
	e.hook("claude", prompt, 0)
	e.write("x.txt", "x by the agent\n")
	e.hook("claude", hookPayload(t, "claude_stop.json", e.dir), 0)

	r := edgeClaudeSlash(t, e, lib, e.dir, "undo", sid)
	if _, err := os.Stat(e.path("lib/extra.go")); err != nil {
		t.Errorf("/undo run from lib/ undid another session's turn in lib's store: %v\n%s", err, r)
	}
	if _, err := os.Stat(e.path("x.txt")); err == nil {
		t.Errorf("/undo run from lib/ did not undo the conversation's turn (x.txt still there)\n%s", r)
	}
}

// TestHugePromptIsRecorded: a prompt of 17 MB (a pasted log) is a
// valid event: the turn is recorded, so its edits can be undone.
func TestHugePromptIsRecorded(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	e.write("README.md", "# my project\n")
	prompt := hookPayload(t, "claude_user_prompt_submit.json", e.dir)
	sid := payloadSession(t, prompt)
	paste := strings.Repeat(strings.Repeat("x", 99)+"\n", 170_000) // 17 MB
	huge := withPrompt(t, prompt, "fix the error in this log\n"+paste)
	r := e.exec("", huge, "hook", "claude")
	if r.code != 0 {
		t.Errorf("prompt hook with a %d-byte payload: exit %d\n%s", len(huge), r.code, r.stderr)
	}
	e.write("x.txt", "x by the agent\n")
	e.hook("claude", hookPayload(t, "claude_stop.json", e.dir), 0)
	if doc := e.log(sid); len(doc.Turns) != 1 || doc.Turns[0].Added != 1 {
		t.Errorf("want one turn adding x.txt, got %+v", doc)
	}
}
