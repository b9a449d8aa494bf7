package cli

// An in-agent /undo without a watch daemon is scoped (issue #34): it
// reads only the turn's directories, and what the user did elsewhere
// after the turn ended stays as it is.

import (
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

// TestHookUndoScoped: a turn recorded through an agent's hooks changed
// a/; after it ended the user edited, made and deleted files in b/ and
// c/. The user's /undo (Claude Code: the prompt hook, then the command
// file's line; Gemini CLI: the prompt hook carries it out) reverts the
// turn, leaves the user's files byte for byte, and its reply says what
// it did. The undo read a/ alone: its checkpoint is the turn's
// after-state, without the user's later edits.
func TestHookUndoScoped(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("runs the command line through sh")
	}
	t.Parallel()
	report := "undid 1 turn: 1 restored, 2 deleted, 0 brought back\n  M a/x.txt\n  D a/deep\n  D a/deep/new.txt\n" +
		"checkpoint ID (turnback restore ID goes back)\n"
	for _, c := range []struct {
		agent, prompt, stop, undo string
		// slash runs /undo as the agent does, returning the reply
		// with the checkpoint's id as ID.
		slash func(t *testing.T, e *cliEnv, sid string) string
		reply string
	}{
		{"claude", "claude_user_prompt_submit.json", "claude_stop.json", "claude_user_prompt_undo.json",
			func(t *testing.T, e *cliEnv, sid string) string {
				e.hook("claude", hookPayload(t, "claude_user_prompt_undo.json", e.dir), 0)
				r := iaShell(t, e, iaClaudeCommandLine(t, e, "undo", sid, ""))
				if r.code != 0 {
					t.Fatalf("/undo's command line: %s", r)
				}
				return r.stdout
			},
			report + "/redo brings it back.\n"},
		{"gemini", "gemini_before_agent.json", "gemini_after_agent.json", "gemini_before_agent_undo.json",
			func(t *testing.T, e *cliEnv, sid string) string {
				r := e.exec("", hookPayload(t, "gemini_before_agent_undo.json", e.dir), "hook", "gemini")
				event, text := modelContext(t, r.stdout)
				if r.code != 0 || event != "BeforeAgent" {
					t.Fatalf("/undo through BeforeAgent: event %q\n%s", event, r)
				}
				return text
			},
			"turnback carried out /undo (the user's command, not yours); its report:\n" + report + "/redo brings it back.\n\n" +
				"The user ran /undo: the report above is turnback's, which changed the files, or says why it changed nothing (not you). " +
				"Tell the user in a sentence or two what it did; when it names commands to go on (such as /undo --force), " +
				"name them as written: the user types them here. Do not change any files for it and do not run them yourself."},
	} {
		t.Run(c.agent, func(t *testing.T) {
			t.Parallel()
			e := newHookEnv(t).with("TURNBACK_AUTO_WATCH=0") // no daemon: the undo captures by itself
			for i := range 20 {
				e.write(fmt.Sprintf("b/%d.txt", i), fmt.Sprintf("b %d\n", i))
				e.write(fmt.Sprintf("c/%d.txt", i), fmt.Sprintf("c %d\n", i))
			}
			e.write("a/x.txt", "x before\n")
			e.ok("init", "--"+c.agent)
			sid := payloadSession(t, hookPayload(t, c.prompt, e.dir))
			before := e.tree()
			e.hook(c.agent, hookPayload(t, c.prompt, e.dir), 0)
			e.write("a/x.txt", "x by the agent\n")
			e.write("a/deep/new.txt", "new by the agent\n")
			e.hook(c.agent, hookPayload(t, c.stop, e.dir), 0)

			// The user, after the turn ended, outside its directories.
			e.write("b/3.txt", "the user's edit\n")
			e.write("c/new.txt", "the user's new file\n")
			e.rm("c/5.txt")
			user := before.With(treetest.Tree{"b/3.txt": treetest.File("the user's edit\n", 0o644),
				"c/new.txt": treetest.File("the user's new file\n", 0o644)}).Without("c/5.txt")

			reply := c.slash(t, e, sid)
			id := regexp.MustCompile(`checkpoint ([0-9a-f]{12}) \(turnback restore ([0-9a-f]{12}) goes back\)`).FindStringSubmatch(reply)
			if id == nil || id[1] != id[2] {
				t.Fatalf("/undo's reply names no checkpoint:\n%s", reply)
			}
			if got := strings.ReplaceAll(reply, id[1], "ID"); got != c.reply {
				t.Errorf("/undo's reply:\n%s\nwant\n%s", got, c.reply)
			}
			e.same("after /undo", user)
			e.hook(c.agent, hookPayload(t, c.stop, e.dir), 0) // the model's answer to /undo ends
			e.same("after the Stop hook that followed /undo", user)

			// Scoped: the checkpoint holds b/ and c/ as the turn's end
			// found them, not the user's later edits.
			if r := e.ok("--session", sid, "diff", "@1", id[1]); r.stdout != "" {
				t.Errorf("the /undo's checkpoint differs from the turn's after-state (the undo read everything?):\n%s", r)
			}
			if doc := e.log(sid); len(doc.Turns) != 1 || !doc.Turns[0].Undone {
				t.Errorf("want the one turn, undone, and none for /undo: %+v", doc)
			}
		})
	}
}
