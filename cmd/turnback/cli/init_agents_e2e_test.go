package cli

// End-to-end tests of init for every agent: the edit of a settings file
// with other hooks and comments against golden files, its removal
// restoring the file byte for byte, --global, and files init refuses.

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

var updateInitGolden = flag.Bool("update-init-golden", false, "rewrite testdata/init/*.golden from what init writes")

// putOnPath puts the test binary on PATH, so the hooks' command is the
// plain "turnback hook NAME" the golden files hold.
func (e *cliEnv) putOnPath() {
	e.extra = append(e.extra, "PATH="+filepath.Dir(e.bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// TestInitRoundTrip: for every agent, init on a settings file with other
// hooks (and, where the agent reads JSONC, comments) writes exactly
// testdata/init/<agent>.golden; init again changes nothing; init
// --remove gives back the original file byte for byte, and a second
// --remove changes nothing. Without a settings file, init then --remove
// leaves the folder as it was.
func TestInitRoundTrip(t *testing.T) {
	t.Parallel()
	for agent, rel := range agentSettingsPath {
		t.Run(agent, func(t *testing.T) {
			t.Parallel()
			e := newHookEnv(t)
			e.putOnPath()
			orig, err := os.ReadFile(filepath.Join("..", "testdata", "init", agent+".json"))
			if err != nil {
				t.Fatal(err)
			}
			e.writeBytes(rel, orig)
			// Claude Code, Gemini CLI and Qwen Code also get the slash
			// commands, Copilot the skills /tb-undo, /tb-redo, /tb-turns.
			cmdLines := func(format string) string {
				ext := map[string]string{"claude": ".md", "gemini": ".toml", "qwen": ".toml", "copilot": "/SKILL.md"}[agent]
				if ext == "" {
					return ""
				}
				var b strings.Builder
				for _, c := range []string{"undo", "redo", "turns"} {
					if agent == "copilot" {
						fmt.Fprintf(&b, format, "tb-"+c, e.path(".github/skills/tb-"+c+ext))
						continue
					}
					fmt.Fprintf(&b, format, c, e.path(filepath.Dir(rel)+"/commands/"+c+ext))
				}
				return b.String()
			}
			r := e.ok("init", "--"+agent)
			trust := ""
			if agent == "codex" {
				trust = "Codex runs a project's hooks only in a project you trust, and a hook only once you trust it: " +
					"start codex in the folder, trust it, and trust turnback's hooks in /hooks (codex exec skips hooks not yet trusted without a word)\n"
			}
			if agent == "copilot" {
				trust = copilotUndoHow
			}
			if r.stdout != "added turnback hooks for "+agent+" to "+e.path(rel)+"\n"+trust+cmdLines("added the turnback command /%s: %s\n") {
				t.Errorf("init:\n%s", r)
			}
			got := e.read(rel)
			golden := filepath.Join("..", "testdata", "init", agent+".golden")
			if *updateInitGolden {
				cliWriteFile(t, golden, got)
			}
			if want, err := os.ReadFile(golden); err != nil || !bytes.Equal(got, want) {
				t.Errorf("init wrote (want %s, -update-init-golden rewrites it; %v):\n%s", golden, err, got)
			}
			if r := e.ok("init", "--"+agent); !strings.HasSuffix(r.stdout, "nothing changed\n") || !bytes.Equal(e.read(rel), got) {
				t.Errorf("second init changed the file:\n%s", r)
			}
			r = e.ok("init", "--"+agent, "--remove")
			if r.stdout != "removed turnback hooks for "+agent+" from "+e.path(rel)+"\n"+cmdLines("removed the turnback command /%s: deleted %s\n") {
				t.Errorf("init --remove:\n%s", r)
			}
			if now := e.read(rel); !bytes.Equal(now, orig) {
				t.Errorf("init --remove left:\n%s\nwant the original:\n%s", now, orig)
			}
			if r := e.ok("init", "--"+agent, "--remove"); !strings.HasSuffix(r.stdout, "has no turnback hooks; nothing changed\n") {
				t.Errorf("second --remove:\n%s", r)
			}

			// No settings file: init makes it (and its folders), --remove
			// takes them away again.
			e.rm(strings.Split(rel, "/")[0])
			before := e.tree()
			e.ok("init", "--"+agent)
			if _, err := os.Stat(e.path(rel)); err != nil {
				t.Fatalf("init made no settings file: %v", err)
			}
			r = e.ok("init", "--"+agent, "--remove")
			if !strings.Contains(r.stdout, "deleted") {
				t.Errorf("init --remove of the file init made:\n%s", r)
			}
			treetest.Check(t, "after init and init --remove", e.tree(), before)
		})
	}
}

// TestInitGlobal: --global writes the user-level settings ($HOME's, or
// $CODEX_HOME's and $COPILOT_HOME's when set), not the folder's; and
// --remove --global takes them out.
func TestInitGlobal(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	e.putOnPath()
	codexHome, copilotHome := filepath.Join(e.base, "codex-home"), filepath.Join(e.base, "copilot-home")
	for _, c := range []struct{ agent, event, path string }{
		{"claude", "UserPromptSubmit", filepath.Join(e.home, ".claude", "settings.json")},
		{"cursor", "beforeSubmitPrompt", filepath.Join(e.home, ".cursor", "hooks.json")},
		{"copilot", "userPromptSubmitted", filepath.Join(e.home, ".copilot", "hooks", "turnback.json")},
		{"codex", "UserPromptSubmit", filepath.Join(e.home, ".codex", "hooks.json")},
	} {
		r := e.ok("init", "--"+c.agent, "--global")
		if !strings.Contains(r.stdout, c.path) {
			t.Errorf("init --%s --global:\n%s", c.agent, r)
		}
		if cmds := hookCommands(t, c.path, c.event); len(cmds) != 1 || cmds[0] != "turnback hook "+c.agent {
			t.Errorf("%s: commands %q", c.path, cmds)
		}
	}
	if ents, _ := os.ReadDir(e.dir); len(ents) != 0 {
		t.Errorf("--global wrote into the folder: %v", ents)
	}
	e.extra = append(e.extra, "CODEX_HOME="+codexHome, "COPILOT_HOME="+copilotHome)
	for _, c := range []struct{ agent, path string }{
		{"codex", filepath.Join(codexHome, "hooks.json")},
		{"copilot", filepath.Join(copilotHome, "hooks", "turnback.json")},
	} {
		e.ok("init", "--"+c.agent, "--global")
		if _, err := os.Stat(c.path); err != nil {
			t.Errorf("init --%s --global with its home variable: %v", c.agent, err)
		}
		e.ok("init", "--"+c.agent, "--global", "--remove")
		if _, err := os.Stat(c.path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("--remove --global left %s (%v)", c.path, err)
		}
	}
}

// TestInitRefusesUnreadable: a settings file init cannot read (a
// trailing comma, an unclosed comment, "hooks" not an object) is left
// byte-identical, exit 1, and the message says why and gives the hooks
// to merge by hand; it never calls the file "not a valid JSON object".
func TestInitRefusesUnreadable(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ agent, content, why string }{
		{"cursor", "{\n  \"version\": 1,\n  \"hooks\": {},\n}\n", "trailing commas"},
		{"qwen", "{\n  /* unclosed\n  \"model\": {}\n}\n", "not closed"},
		{"copilot", "{\"version\": 1, \"hooks\": [\"x\"]}", `"hooks" is not a JSON object`},
		{"codex", "{\"hooks\": {\"Stop\": {\"command\": \"x\"}}}", "hooks.Stop is not a list"},
	} {
		t.Run(c.agent, func(t *testing.T) {
			t.Parallel()
			e := newHookEnv(t)
			e.putOnPath()
			rel := agentSettingsPath[c.agent]
			e.write(rel, c.content)
			r := e.exec("", nil, "init", "--"+c.agent)
			if r.code != 1 || r.stdout != "" {
				t.Errorf("want exit 1 and nothing on stdout\n%s", r)
			}
			for _, want := range []string{e.path(rel), c.why, "left untouched", `{"hooks":{`, "turnback hook " + c.agent} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
			if strings.Contains(r.stderr, "not a valid JSON object") {
				t.Errorf("stderr:\n%s", r.stderr)
			}
			if got := string(e.read(rel)); got != c.content {
				t.Errorf("file changed:\n%s", got)
			}
		})
	}
}

// TestInitRemoveCommands: init --remove deletes the command files init
// wrote and leaves a user's file of the same name (and so its folder);
// with --global the commands go to the home directory's and come out
// of it again, the folders init made with them.
func TestInitRemoveCommands(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	e.putOnPath()
	e.write(".gemini/commands/undo.toml", "my own undo\n")
	e.ok("init", "--gemini")
	r := e.ok("init", "--gemini", "--remove")
	for _, c := range []string{"redo", "turns"} {
		if want := "removed the turnback command /" + c + ": deleted " + e.path(".gemini/commands/"+c+".toml") + "\n"; !strings.Contains(r.stdout, want) {
			t.Errorf("init --remove:\n%s\nwant a line %q", r, want)
		}
	}
	if strings.Contains(r.stdout, "/undo") || string(e.read(".gemini/commands/undo.toml")) != "my own undo\n" {
		t.Errorf("init --remove touched the user's undo.toml:\n%s", r)
	}
	if ents, _ := os.ReadDir(e.path(".gemini/commands")); len(ents) != 1 {
		t.Errorf(".gemini/commands after --remove: %v", ents)
	}

	var doc struct {
		Commands struct{ Written, Skipped []string }
	}
	e.okJSON(&doc, "init", "--claude", "--global")
	cdir := filepath.Join(e.home, ".claude", "commands")
	if len(doc.Commands.Written) != 3 || filepath.Dir(doc.Commands.Written[0]) != cdir || len(doc.Commands.Skipped) != 0 {
		t.Errorf("init --claude --global --json: %+v, want 3 files in %s", doc, cdir)
	}
	var gone struct {
		Deleted         bool     `json:"deleted"`
		CommandsRemoved []string `json:"commands_removed"`
	}
	e.okJSON(&gone, "init", "--claude", "--global", "--remove")
	if !gone.Deleted || len(gone.CommandsRemoved) != 3 {
		t.Errorf("init --claude --global --remove --json: %+v", gone)
	}
	if _, err := os.Stat(filepath.Join(e.home, ".claude")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("~/.claude after --remove: %v", err)
	}
}

// TestInitRemoveKeepsFoldersItDidNotMake: init --remove deletes a
// command folder only when init made it. A folder that was there before,
// even empty, stays, and the whole project is as it was byte for byte;
// a folder init made goes, with the .claude it made for the settings.
func TestInitRemoveKeepsFoldersItDidNotMake(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	e.putOnPath()
	e.write("README.md", "# my project\n")
	for _, d := range []string{".claude/commands", ".gemini/commands"} {
		if err := os.MkdirAll(e.path(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	before := e.tree()
	for _, a := range []string{"claude", "gemini"} {
		var doc struct {
			Commands struct{ Written []string }
		}
		if e.okJSON(&doc, "init", "--"+a); len(doc.Commands.Written) != 3 {
			t.Errorf("init --%s wrote commands %v", a, doc.Commands.Written)
		}
		if data := e.read("." + a + "/commands/undo." + map[string]string{"claude": "md", "gemini": "toml"}[a]); bytes.Contains(data, []byte("made this folder")) {
			t.Errorf("init --%s says it made a folder that was there:\n%s", a, data)
		}
		e.ok("init", "--"+a, "--remove")
	}
	e.same("after init and init --remove with empty command folders", before)

	// A fresh project: init makes .claude and .claude/commands, and the
	// removal takes both.
	if err := os.RemoveAll(e.path(".claude")); err != nil {
		t.Fatal(err)
	}
	before = e.tree()
	e.ok("init", "--claude")
	if data := e.read(".claude/commands/redo.md"); !bytes.HasPrefix(data, []byte("---\n# turnback init made this folder\n# written by turnback init")) {
		t.Errorf("redo.md of an init that made its folder:\n%s", data)
	}
	e.ok("init", "--claude", "--remove")
	e.same("after init and init --remove in a fresh project", before)
}
