package cli

// init --copilot installs turnback's skills /tb-undo, /tb-redo and
// /tb-turns in .github/skills (~/.copilot/skills with --global), and
// --remove takes out exactly those, never a user's own skill.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInitCopilotSkills: a user's own skill of the same name and the
// user's other skills stay byte for byte; init again changes nothing;
// --remove deletes turnback's skills with their folders and leaves the
// project as it was.
func TestInitCopilotSkills(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	e.putOnPath()
	e.write("README.md", "# my project\n")
	e.write(".github/skills/tb-redo/SKILL.md", "---\nname: tb-redo\ndescription: mine\n---\nmy own redo\n")
	e.write(".github/skills/review/SKILL.md", "---\nname: review\ndescription: mine\n---\nreview it\n")
	before := e.tree()
	skill := func(c string) string { return e.path(".github/skills/tb-" + c + "/SKILL.md") }

	r := e.ok("init", "--copilot")
	want := "added the turnback command /tb-undo: " + skill("undo") + "\n" +
		"added the turnback command /tb-turns: " + skill("turns") + "\n" +
		"left " + skill("redo") + " as it is (not turnback's): /tb-redo runs it, not turnback\n"
	if !strings.HasSuffix(r.stdout, want) {
		t.Errorf("init --copilot:\n%s\nwant it to end:\n%s", r, want)
	}
	undo := string(e.read(".github/skills/tb-undo/SKILL.md"))
	// Quoted: Copilot CLI skips a skill whose front matter is not YAML.
	for _, w := range []string{"\nname: tb-undo\n", "\ndescription: \"Undo the file changes of this conversation's last turn (turnback; /tb-undo N: the last N). Use when the user types /tb-undo.\"\n", "\n```sh\nturnback --agent copilot --session \"${COPILOT_AGENT_SESSION_ID:-default}\" undo\n```\n"} {
		if !strings.Contains(undo, w) {
			t.Errorf("tb-undo/SKILL.md lacks %q:\n%s", w, undo)
		}
	}
	after := e.tree()
	if r := e.ok("init", "--copilot"); strings.Contains(r.stdout, "added") || strings.Contains(r.stdout, "updated") {
		t.Errorf("second init --copilot:\n%s", r)
	}
	e.same("after a second init", after)

	r = e.ok("init", "--copilot", "--remove")
	for _, c := range []string{"undo", "turns"} {
		if w := "removed the turnback command /tb-" + c + ": deleted " + skill(c) + "\n"; !strings.Contains(r.stdout, w) {
			t.Errorf("init --remove:\n%s\nwant a line %q", r, w)
		}
	}
	if strings.Contains(r.stdout, "tb-redo") {
		t.Errorf("init --remove names the user's tb-redo:\n%s", r)
	}
	e.same("after init --copilot and --remove", before)
}

// TestInitCopilotSkillsGlobal: --global puts the skills in
// $COPILOT_HOME/skills, and --remove takes them and the folders init
// made away.
func TestInitCopilotSkillsGlobal(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	e.putOnPath()
	home := filepath.Join(e.base, "copilot-home")
	e.extra = append(e.extra, "COPILOT_HOME="+home)
	e.ok("init", "--copilot", "--global")
	for _, c := range []string{"undo", "redo", "turns"} {
		if _, err := os.Stat(filepath.Join(home, "skills", "tb-"+c, "SKILL.md")); err != nil {
			t.Errorf("init --copilot --global: %v", err)
		}
	}
	e.ok("init", "--copilot", "--global", "--remove")
	if _, err := os.Stat(filepath.Join(home, "skills")); !os.IsNotExist(err) {
		t.Errorf("%s after --remove: %v", filepath.Join(home, "skills"), err)
	}
}
