//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Turn is the deterministic agent turn of a tree: files modified, created
// and deleted. It keeps the original bytes of every path it touches, so
// the harness can put the tree back whatever an engine did.
type Turn struct {
	Modified []string
	Created  []string
	Deleted  []string
	orig     map[string][]byte
	perm     map[string]fs.FileMode
	after    map[string][]byte
}

// Turn sizes from the benchmark issue.
const (
	turnModified = 20
	turnCreated  = 5
	turnDeleted  = 2
)

// turnCandidates lists the files both kinds of engine capture: what git
// would add (it honours every .gitignore), minus turnback's built-in
// ignored directories, hidden directories, and directories governed by
// .ignore or .turnbackignore files (git does not read those).
func turnCandidates(ctx context.Context, t *Tree, scratch string) ([]string, error) {
	gd := filepath.Join(scratch, "candidates.git")
	os.RemoveAll(gd)
	defer os.RemoveAll(gd)
	if out, err := gitCmd(ctx, gd, t.Dir, "init", "-q").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("git init: %v: %s", err, out)
	}
	out, err := gitCmd(ctx, gd, t.Dir, "ls-files", "-z", "--others", "--exclude-standard").Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w", err)
	}
	otherIgnore := map[string]bool{}
	for i := range t.Manifest.Ents {
		e := &t.Manifest.Ents[i]
		n := t.Manifest.name(e)
		if b := path.Base(n); e.Kind == kindFile && (b == ".ignore" || b == ".turnbackignore") {
			otherIgnore[path.Dir(n)] = true
		}
	}
	var c []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p == "" {
			continue
		}
		i := t.Manifest.lookup(p)
		if i < 0 {
			continue
		}
		e := &t.Manifest.Ents[i]
		if e.Kind != kindFile || e.Size < 256 || e.Size > 256<<10 {
			continue
		}
		ok := true
		parts := strings.Split(p, "/")
		for j, part := range parts[:len(parts)-1] {
			if builtinIgnored[part] || strings.HasPrefix(part, ".") || otherIgnore[strings.Join(parts[:j+1], "/")] {
				ok = false
				break
			}
		}
		if ok && otherIgnore["."] {
			ok = false
		}
		if ok && !strings.HasPrefix(path.Base(p), ".") {
			c = append(c, p)
		}
	}
	sort.Strings(c)
	return c, nil
}

// planTurn picks the turn's paths from the candidates (text files only)
// and computes its contents.
func planTurn(t *Tree, cands []string, seed uint64) (*Turn, error) {
	r := newRNG(mix(seed, 77))
	tu := &Turn{orig: map[string][]byte{}, perm: map[string]fs.FileMode{}, after: map[string][]byte{}}
	used := map[string]bool{}
	pick := func() (string, []byte, error) {
		for tries := 0; tries < 100000 && len(cands) > 0; tries++ {
			p := cands[r.intn(len(cands))]
			if used[p] {
				continue
			}
			used[p] = true
			data, err := os.ReadFile(filepath.Join(t.Dir, filepath.FromSlash(p)))
			if err != nil {
				return "", nil, err
			}
			if bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
				continue // binary
			}
			return p, data, nil
		}
		return "", nil, fmt.Errorf("%s: not enough text files to build a turn (%d candidates)", t.Name, len(cands))
	}
	words := strings.Fields("agent refactor handler request response config parse render update validate cache retry timeout context error result client server session token")
	line := func() string {
		var b strings.Builder
		b.WriteString("\t")
		for i, n := 0, 3+r.intn(8); i < n; i++ {
			b.WriteString(words[r.intn(len(words))])
			b.WriteString(" ")
		}
		return b.String() + "// edited by the benchmark turn\n"
	}
	for len(tu.Modified) < turnModified {
		p, data, err := pick()
		if err != nil {
			return nil, err
		}
		tu.Modified = append(tu.Modified, p)
		tu.orig[p] = data
		tu.perm[p] = fs.FileMode(t.Manifest.Ents[t.Manifest.lookup(p)].Perm)
		// Rewrite a block in the middle and append a few lines, as an
		// edit by an agent would.
		lines := strings.SplitAfter(string(data), "\n")
		at := len(lines) / 2
		cut := min(len(lines)-at, 1+r.intn(5))
		var nb strings.Builder
		for _, l := range lines[:at] {
			nb.WriteString(l)
		}
		for i, n := 0, 2+r.intn(10); i < n; i++ {
			nb.WriteString(line())
		}
		for _, l := range lines[at+cut:] {
			nb.WriteString(l)
		}
		if !strings.HasSuffix(nb.String(), "\n") {
			nb.WriteString("\n")
		}
		for i, n := 0, 1+r.intn(4); i < n; i++ {
			nb.WriteString(line())
		}
		tu.after[p] = []byte(nb.String())
	}
	for len(tu.Deleted) < turnDeleted {
		p, data, err := pick()
		if err != nil {
			return nil, err
		}
		tu.Deleted = append(tu.Deleted, p)
		tu.orig[p] = data
		tu.perm[p] = fs.FileMode(t.Manifest.Ents[t.Manifest.lookup(p)].Perm)
	}
	for i := 0; len(tu.Created) < turnCreated; i++ {
		dir := path.Dir(cands[r.intn(len(cands))])
		ext := path.Ext(cands[r.intn(len(cands))])
		p := path.Join(dir, fmt.Sprintf("bench_turn_new_%d%s", i, ext))
		if dir == "." {
			p = fmt.Sprintf("bench_turn_new_%d%s", i, ext)
		}
		if t.Manifest.lookup(p) >= 0 || used[p] {
			continue
		}
		used[p] = true
		tu.Created = append(tu.Created, p)
		var b strings.Builder
		fmt.Fprintf(&b, "// %s: created by the benchmark turn\n", p)
		for n := 1000 + r.intn(7000); b.Len() < n; {
			b.WriteString(line())
		}
		tu.after[p] = []byte(b.String())
	}
	return tu, nil
}

// Apply performs the turn on the tree, as an agent's tools would: files
// rewritten in place, new files written, deleted files unlinked.
func (tu *Turn) Apply(dir string) error {
	for _, p := range tu.Modified {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), tu.after[p], 0o644); err != nil {
			return err
		}
	}
	for _, p := range tu.Created {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), tu.after[p], 0o644); err != nil {
			return err
		}
	}
	for _, p := range tu.Deleted {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
			return err
		}
	}
	return nil
}

// Reset puts every path the turn touches back to its reference state
// (harness only; used after an engine failed to).
func (tu *Turn) Reset(dir string) error {
	for p, data := range tu.orig {
		abs := filepath.Join(dir, filepath.FromSlash(p))
		os.RemoveAll(abs)
		if err := os.WriteFile(abs, data, tu.perm[p]); err != nil {
			return err
		}
		if err := os.Chmod(abs, tu.perm[p]); err != nil {
			return err
		}
	}
	for _, p := range tu.Created {
		if err := os.RemoveAll(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
			return err
		}
	}
	return nil
}

// gitCmd builds a git command on a separate git dir and work tree, with
// the user's and the system's git configuration shut out.
func gitCmd(ctx context.Context, gitDir, workTree string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append([]string{"--git-dir=" + gitDir, "--work-tree=" + workTree}, args...)...)
	cmd.Dir = workTree
	cmd.Env = append(cleanEnv(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "LC_ALL=C")
	return cmd
}

// cleanEnv is the environment without variables that would change what
// the engines do.
func cleanEnv() []string {
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
