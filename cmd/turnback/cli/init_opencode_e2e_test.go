package cli

// End-to-end tests of "turnback init --opencode": the plugin file and
// the commands it writes, and --remove, which leaves every other file,
// OpenCode's own in .opencode/ included, as it was.

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

// ocArtefacts are the files OpenCode writes into a config folder when it
// starts (it installs @opencode-ai/plugin there), as 1.18.33 writes
// them: the .gitignore first.
var ocArtefacts = []struct{ rel, data string }{
	{".opencode/.gitignore", "node_modules\npackage.json\npackage-lock.json\nbun.lock\n.gitignore\n"},
	{".opencode/package.json", "{\n  \"dependencies\": {\n    \"@opencode-ai/plugin\": \"1.18.33\"\n  }\n}\n"},
	{".opencode/bun.lock", "{\n  \"lockfileVersion\": 1\n}\n"},
	{".opencode/node_modules/@opencode-ai/plugin/package.json", "{\"name\": \"@opencode-ai/plugin\", \"version\": \"1.18.33\"}\n"},
}

// TestInitOpenCode: init --opencode writes .opencode/plugins/turnback.js,
// which runs the binary init ran (by its path: turnback is not on
// PATH), and /tb-undo, /tb-redo and /tb-turns; a second init changes
// nothing. OpenCode's install artefacts are no part of a turn. --remove
// gives back the folder as it was plus OpenCode's artefacts, byte for
// byte, with or without a .opencode of the user's before init.
func TestInitOpenCode(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		user map[string]string // the user's files before init
	}{
		{"fresh", map[string]string{"README.md": "# my project\n"}},
		{"user config", map[string]string{"README.md": "# my project\n",
			".opencode/opencode.json": "{\"model\": \"x/y\"}\n", ".opencode/plugins/mine.ts": "export const Mine = async () => ({})\n",
			".opencode/commands/review.md": "Review $ARGUMENTS\n"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newHookEnv(t)
			e.extra = []string{"PATH=/usr/bin:/bin"}
			for rel, data := range c.user {
				e.write(rel, data)
			}
			before := e.tree()
			r := e.ok("init", "--opencode")
			plugin := e.path(".opencode/plugins/turnback.js")
			if !strings.Contains(r.stdout, "added turnback hooks for opencode to "+plugin) || !strings.Contains(r.stdout, "added the turnback command /tb-undo") {
				t.Errorf("init --opencode:\n%s", r)
			}
			js := string(e.read(".opencode/plugins/turnback.js"))
			if !strings.Contains(js, "const BIN = \""+e.bin+"\"\n") || !strings.HasPrefix(js, "// written by turnback init") {
				t.Errorf("the plugin does not run %s:\n%s", e.bin, js)
			}
			for _, name := range []string{"undo", "redo", "turns"} {
				if md := string(e.read(".opencode/commands/tb-" + name + ".md")); !strings.Contains(md, "\n/tb-"+name) {
					t.Errorf("tb-%s.md:\n%s", name, md)
				}
			}
			installed := e.tree()
			if r := e.ok("init", "--opencode"); !strings.Contains(r.stdout, "nothing changed") {
				t.Errorf("second init:\n%s", r)
			}
			e.same("after a second init", installed)

			// OpenCode starts and installs its plugin package; a turn
			// that changes nothing else records nothing.
			e.ok("snap", "-m", "start")
			for _, f := range ocArtefacts {
				e.write(f.rel, f.data)
			}
			if doc := e.log(""); len(doc.Turns) != 1 || !doc.Turns[0].Open {
				t.Fatalf("want the open turn: %+v", doc)
			}
			e.ok("end")
			if doc := e.log(""); len(doc.Turns) != 0 {
				t.Errorf("OpenCode's install artefacts made a turn: %+v", doc)
			}

			r = e.ok("init", "--opencode", "--remove")
			if !strings.Contains(r.stdout, "removed turnback hooks for opencode") || !strings.Contains(r.stdout, "removed the turnback command /tb-turns") {
				t.Errorf("init --remove:\n%s", r)
			}
			want := maps.Clone(before)
			withOC := treetest.Tree(treetest.MustRead(t, e.dir))
			for rel, ent := range withOC {
				if strings.HasPrefix(rel, ".opencode/.gitignore") || strings.HasPrefix(rel, ".opencode/package.json") ||
					strings.HasPrefix(rel, ".opencode/bun.lock") || strings.HasPrefix(rel, ".opencode/node_modules") || rel == ".opencode" {
					want[rel] = ent
				}
			}
			for _, f := range ocArtefacts {
				if string(e.read(f.rel)) != f.data {
					t.Errorf("%s changed", f.rel)
				}
			}
			e.same("after init --remove", want)

			// Without OpenCode's artefacts, nothing of init is left.
			e.rm(".opencode/.gitignore")
			e.rm(".opencode/package.json")
			e.rm(".opencode/bun.lock")
			e.rm(".opencode/node_modules")
			if _, ok := before[".opencode"]; !ok {
				e.rm(".opencode") // empty
			}
			e.ok("init", "--opencode")
			e.ok("init", "--opencode", "--remove")
			e.same("after init and --remove", before)
		})
	}
}

// TestInitOpenCodeNotOurs: a plugin file of the same name that init did
// not write is left byte-identical, and init says so (exit 1).
func TestInitOpenCodeNotOurs(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	e.write(".opencode/plugins/turnback.js", "export const Mine = async () => ({})\n")
	before := e.tree()
	r := e.expect(1, "init", "--opencode")
	if !strings.Contains(r.stderr, "turnback.js was not written by turnback init; it was left untouched") {
		t.Errorf("init over the user's plugin:\n%s", r)
	}
	e.same("after init", before)
	e.ok("init", "--opencode", "--remove")
	e.same("after init --remove", before)
	if _, err := os.Stat(e.path(".opencode/commands")); !os.IsNotExist(err) {
		t.Errorf(".opencode/commands: %v", err)
	}
}

// TestInitOpenCodeGlobal: --global writes the plugin and the commands
// into OpenCode's user config folder, ~/.config/opencode, or
// $XDG_CONFIG_HOME/opencode when that is set, not into the folder; and
// --remove --global takes them out with the folders init made.
func TestInitOpenCodeGlobal(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	xdgConfig := filepath.Join(e.base, "config")
	for _, c := range []struct {
		extra []string
		root  string // OpenCode's user config folder
	}{
		{nil, filepath.Join(e.home, ".config", "opencode")},
		{[]string{"XDG_CONFIG_HOME=" + xdgConfig}, filepath.Join(xdgConfig, "opencode")},
	} {
		e.extra = c.extra
		home := treetest.MustRead(t, e.home)
		r := e.ok("init", "--opencode", "--global")
		plugin := filepath.Join(c.root, "plugins", "turnback.js")
		if !strings.Contains(r.stdout, plugin) || !strings.Contains(r.stdout, filepath.Join(c.root, "commands", "tb-undo.md")) {
			t.Errorf("init --opencode --global (%v):\n%s", c.extra, r)
		}
		if ents, _ := os.ReadDir(e.dir); len(ents) != 0 {
			t.Errorf("--global wrote into the folder: %v", ents)
		}
		e.ok("init", "--opencode", "--global", "--remove")
		if _, err := os.Stat(c.root); !os.IsNotExist(err) {
			t.Errorf("--remove --global left %s (%v)", c.root, err)
		}
		treetest.Check(t, "home after init and --remove", treetest.MustRead(t, e.home), home)
	}
}
