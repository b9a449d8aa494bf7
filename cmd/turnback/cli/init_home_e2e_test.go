package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInitInHomeRefused: init run in the home directory would write the
// agent's user-level settings (for Claude Code, ~/.claude/settings.json
// is both), so every project gets the hooks, while the home directory
// itself is never recorded. It refuses and says what to do instead;
// --global does it on purpose, and --remove still works there.
func TestInitInHomeRefused(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	settings := filepath.Join(e.home, ".claude", "settings.json")
	r := e.exec(e.home, nil, "init", "--claude")
	if r.code != 1 || !strings.Contains(r.stderr, "is your home directory, which turnback does not record") ||
		!strings.Contains(r.stderr, "user-level settings, which every project reads") || !strings.Contains(r.stderr, "--global") {
		t.Fatalf("init --claude in the home directory: want exit 1 and why\n%v", r)
	}
	if _, err := os.Lstat(settings); !os.IsNotExist(err) {
		t.Fatalf("init in the home directory wrote %s (%v)", settings, err)
	}
	if r := e.exec(e.home, nil, "init", "--claude", "--global"); r.code != 0 {
		t.Fatalf("init --claude --global:\n%v", r)
	}
	if b, err := os.ReadFile(settings); err != nil || !strings.Contains(string(b), "hook claude") {
		t.Fatalf("--global did not add the hooks to %s: %q, %v", settings, b, err)
	}
	if r := e.exec(e.home, nil, "init", "--claude", "--remove"); r.code != 0 || !strings.Contains(r.stdout, "removed turnback hooks") {
		t.Fatalf("init --claude --remove in the home directory:\n%v", r)
	}
	if r := e.exec(e.dir, nil, "init", "--claude"); r.code != 0 {
		t.Fatalf("init --claude in a project folder:\n%v", r)
	}
}

// TestInitRefusedThroughSymlink: -C names the home directory or the
// root through a symlink; the refusal names what it is.
func TestInitRefusedThroughSymlink(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	for _, c := range []struct{ target, want string }{
		{e.home, "is your home directory, which turnback does not record"},
		{"/", "is the filesystem root, which turnback does not record"},
	} {
		link := filepath.Join(e.base, "link-"+filepath.Base(c.target))
		if err := os.Symlink(c.target, link); err != nil {
			t.Fatal(err)
		}
		r := e.exec(e.base, nil, "-C", link, "init", "--claude")
		if r.code != 1 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("init -C %s (to %s): want exit 1 and %q\n%v", link, c.target, c.want, r)
		}
		if c.target == e.home && !strings.Contains(r.stderr, "user-level settings") {
			t.Errorf("init through a symlink to the home directory does not name the user-level settings:\n%v", r)
		}
	}
}
