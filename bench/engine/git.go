//go:build linux

package engine

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Git is a shadow git repository, as OpenCode, Gemini CLI and Cline keep
// one (engine git): capture is `add -A` then `write-tree` (plus `init`
// when cold), undo is `restore --source=<before tree> --staged
// --worktree -- .`.
type Git struct {
	gitDir, tree string
	before       string // tree id of the last before-state
	// excludeNames go to info/exclude (turnback's built-in ignored
	// directory names, when asked).
	excludeNames []string
}

// NewGit is the git engine; excludeNames, when not empty, are directory
// names the shadow repository ignores.
func NewGit(excludeNames []string) *Git { return &Git{excludeNames: excludeNames} }

func (e *Git) Name() string { return "shadow-git" }
func (e *Git) Available() (bool, string) {
	if _, err := exec.LookPath("git"); err != nil {
		return false, "git not on PATH"
	}
	return true, ""
}
func (e *Git) Setup(name, dir, work string) error {
	e.tree, e.gitDir = dir, filepath.Join(work, "shadow.git")
	return nil
}
func (e *Git) Fresh() error     { e.before = ""; return os.RemoveAll(e.gitDir) }
func (e *Git) StoreDir() string { return e.gitDir }
func (e *Git) Close() error     { return nil }

func (e *Git) Capture(ctx context.Context, phase string, rep int) (Op, error) {
	p := startOp()
	err := func() error {
		if phase == PhaseCold {
			if err := p.run(GitCmd(ctx, e.gitDir, e.tree, "init", "-q")); err != nil {
				return err
			}
			if len(e.excludeNames) > 0 {
				var b strings.Builder
				for _, n := range e.excludeNames {
					b.WriteString(n + "/\n")
				}
				if err := os.WriteFile(filepath.Join(e.gitDir, "info", "exclude"), []byte(b.String()), 0o644); err != nil {
					return err
				}
			}
		}
		if err := p.run(GitCmd(ctx, e.gitDir, e.tree, "add", "-A")); err != nil {
			return err
		}
		return p.run(GitCmd(ctx, e.gitDir, e.tree, "write-tree"))
	}()
	id := strings.TrimSpace(p.stdout.String())
	op := p.finish()
	if err != nil {
		return op, err
	}
	if phase == PhaseBefore {
		e.before = id
	}
	mergeInfo(&op, map[string]any{"tree": id})
	return op, nil
}

func (e *Git) Undo(ctx context.Context, rep int) (Op, error) {
	if e.before == "" {
		return Op{}, fmt.Errorf("shadow git: no before-state recorded")
	}
	op, _, err := oneCommand(GitCmd(ctx, e.gitDir, e.tree, "restore", "--source="+e.before, "--staged", "--worktree", "--", "."))
	return op, err
}

// FileCount is how many paths the shadow git index holds (-1: unknown).
func (e *Git) FileCount(ctx context.Context) int {
	out, err := GitCmd(ctx, e.gitDir, e.tree, "ls-files", "-z").Output()
	if err != nil {
		return -1
	}
	return bytes.Count(out, []byte{0})
}

// GitCmd builds a git command on a separate git dir and work tree, with
// the user's and the system's git configuration shut out.
func GitCmd(ctx context.Context, gitDir, workTree string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append([]string{"--git-dir=" + gitDir, "--work-tree=" + workTree}, args...)...)
	cmd.Dir = workTree
	cmd.Env = append(CleanEnv(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "LC_ALL=C")
	return cmd
}

// CleanEnv is the environment without variables that would change what
// the engines do.
func CleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "TURNBACK_") || strings.HasPrefix(k, "GIT_") || strings.HasPrefix(k, "RESTIC_") || k == "LC_ALL" || k == "XDG_DATA_HOME" {
			continue
		}
		env = append(env, kv)
	}
	return env
}
