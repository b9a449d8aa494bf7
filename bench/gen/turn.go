//go:build linux

package gen

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/turnback/turnback/bench/truth"
	"github.com/turnback/turnback/walker/ignore"
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
	TurnModified = 20
	TurnCreated  = 5
	TurnDeleted  = 2
)

// Candidates lists the files of ref among gitPaths (what git adds: it
// honours every .gitignore) that every engine captures: regular files of
// 256 B to 256 KiB outside turnback's built-in ignored directories,
// hidden directories and directories governed by .ignore or
// .turnbackignore files (git does not read those), and not hidden
// themselves. The list is sorted.
func Candidates(ref *truth.State, gitPaths []string) []string {
	otherIgnore := map[string]bool{}
	for i := range ref.Ents {
		e := &ref.Ents[i]
		n := ref.Name(e)
		if b := path.Base(n); e.Kind == truth.KindFile && (b == ".ignore" || b == ".turnbackignore") {
			otherIgnore[path.Dir(n)] = true
		}
	}
	if otherIgnore["."] {
		return nil
	}
	var c []string
	for _, p := range gitPaths {
		i := ref.Lookup(p)
		if p == "" || i < 0 {
			continue
		}
		e := &ref.Ents[i]
		if e.Kind != truth.KindFile || e.Size < 256 || e.Size > 256<<10 || strings.HasPrefix(path.Base(p), ".") {
			continue
		}
		if capturedDir(p, otherIgnore) {
			c = append(c, p)
		}
	}
	sort.Strings(c)
	return c
}

// capturedDir says whether every directory above p is one turnback
// captures and git sees the same way.
func capturedDir(p string, otherIgnore map[string]bool) bool {
	parts := strings.Split(p, "/")
	for j, part := range parts[:len(parts)-1] {
		if ignore.IsBuiltin(part, true) || strings.HasPrefix(part, ".") || otherIgnore[strings.Join(parts[:j+1], "/")] {
			return false
		}
	}
	return true
}

// turnPlanner draws a turn's paths and contents.
type turnPlanner struct {
	name, dir string
	ref       *truth.State
	cands     []string
	r         *rng
	used      map[string]bool
	tu        *Turn
}

var turnWords = strings.Fields("agent refactor handler request response config parse render update validate cache retry timeout context error result client server session token")

// PlanTurn picks the turn's paths from cands (text files only; see
// Candidates) of the tree name in dir, whose ground truth is ref, and
// computes its contents.
func PlanTurn(name, dir string, ref *truth.State, cands []string, seed uint64) (*Turn, error) {
	p := &turnPlanner{name: name, dir: dir, ref: ref, cands: cands, r: newRNG(mix(seed, 77)), used: map[string]bool{},
		tu: &Turn{orig: map[string][]byte{}, perm: map[string]fs.FileMode{}, after: map[string][]byte{}}}
	tu := p.tu
	for len(tu.Modified) < TurnModified {
		f, data, err := p.take()
		if err != nil {
			return nil, err
		}
		tu.Modified = append(tu.Modified, f)
		tu.after[f] = p.edit(data)
	}
	for len(tu.Deleted) < TurnDeleted {
		f, _, err := p.take()
		if err != nil {
			return nil, err
		}
		tu.Deleted = append(tu.Deleted, f)
	}
	for i := 0; len(tu.Created) < TurnCreated; i++ {
		p.create(i)
	}
	return tu, nil
}

// take picks an unused text file among the candidates and keeps its
// original bytes and mode.
func (p *turnPlanner) take() (string, []byte, error) {
	for tries := 0; tries < 100000 && len(p.cands) > 0; tries++ {
		f := p.cands[p.r.intn(len(p.cands))]
		if p.used[f] {
			continue
		}
		p.used[f] = true
		data, err := os.ReadFile(filepath.Join(p.dir, filepath.FromSlash(f)))
		if err != nil {
			return "", nil, err
		}
		if bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
			continue // binary
		}
		p.tu.orig[f] = data
		p.tu.perm[f] = fs.FileMode(p.ref.Ents[p.ref.Lookup(f)].Perm)
		return f, data, nil
	}
	return "", nil, fmt.Errorf("gen: %s: not enough text files to build a turn (%d candidates)", p.name, len(p.cands))
}

// line is one line an agent writes.
func (p *turnPlanner) line() string {
	var b strings.Builder
	b.WriteString("\t")
	for i, n := 0, 3+p.r.intn(8); i < n; i++ {
		b.WriteString(turnWords[p.r.intn(len(turnWords))])
		b.WriteString(" ")
	}
	return b.String() + "// edited by the benchmark turn\n"
}

// edit rewrites a block in the middle of data and appends a few lines,
// as an edit by an agent would.
func (p *turnPlanner) edit(data []byte) []byte {
	r := p.r
	lines := strings.SplitAfter(string(data), "\n")
	at := len(lines) / 2
	cut := min(len(lines)-at, 1+r.intn(5))
	var nb strings.Builder
	for _, l := range lines[:at] {
		nb.WriteString(l)
	}
	for i, n := 0, 2+r.intn(10); i < n; i++ {
		nb.WriteString(p.line())
	}
	for _, l := range lines[at+cut:] {
		nb.WriteString(l)
	}
	if !strings.HasSuffix(nb.String(), "\n") {
		nb.WriteString("\n")
	}
	for i, n := 0, 1+r.intn(4); i < n; i++ {
		nb.WriteString(p.line())
	}
	return []byte(nb.String())
}

// create plans the i-th new file, in the directory of a candidate with
// the extension of another; a name already taken is skipped.
func (p *turnPlanner) create(i int) {
	r := p.r
	dir := path.Dir(p.cands[r.intn(len(p.cands))])
	ext := path.Ext(p.cands[r.intn(len(p.cands))])
	f := path.Join(dir, fmt.Sprintf("bench_turn_new_%d%s", i, ext))
	if dir == "." {
		f = fmt.Sprintf("bench_turn_new_%d%s", i, ext)
	}
	if p.ref.Lookup(f) >= 0 || p.used[f] {
		return
	}
	p.used[f] = true
	p.tu.Created = append(p.tu.Created, f)
	var b strings.Builder
	fmt.Fprintf(&b, "// %s: created by the benchmark turn\n", f)
	for n := 1000 + r.intn(7000); b.Len() < n; {
		b.WriteString(p.line())
	}
	p.tu.after[f] = []byte(b.String())
}

// Apply performs the turn on the tree in dir, as an agent's tools would:
// files rewritten in place, new files written, deleted files unlinked.
func (tu *Turn) Apply(dir string) error {
	for _, f := range append(append([]string(nil), tu.Modified...), tu.Created...) {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(f)), tu.after[f], 0o644); err != nil {
			return err
		}
	}
	for _, f := range tu.Deleted {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
			return err
		}
	}
	return nil
}

// Reset puts every path the turn touches back to its reference state
// (harness only; used after an engine failed to).
func (tu *Turn) Reset(dir string) error {
	for f, data := range tu.orig {
		abs := filepath.Join(dir, filepath.FromSlash(f))
		os.RemoveAll(abs)
		if err := os.WriteFile(abs, data, tu.perm[f]); err != nil {
			return err
		}
		if err := os.Chmod(abs, tu.perm[f]); err != nil {
			return err
		}
	}
	for _, f := range tu.Created {
		if err := os.RemoveAll(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
			return err
		}
	}
	return nil
}
