package turnback

import (
	"context"
	"fmt"
	"io"
	"path"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/restore"
	"github.com/turnback/turnback/walker/ignore"
)

// A path that is ignored in the state an undo, redo or restore starts
// from, or in the state it goes to, is never deleted or rewritten: a turn
// that un-ignored files (rewrote .gitignore) must not make its undo
// delete them. Each state's rules are its own ignore files, read from
// the stored tree, with the built-in rules and "inside an ignored
// directory is ignored", as capture applies them, and the directories
// its capture skipped for what they held (a CACHEDIR.TAG, ...), which
// its snapshot record lists (skipinfo.go): a tree cannot tell them from
// directories that did not exist.

// treeIgnorer answers whether a path is ignored under the ignore files of
// one stored tree.
type treeIgnorer struct {
	loader manifest.Loader
	src    *cas.Store
	root   cas.Hash
	dirs   map[string]*treeIgnoreDir
	// generated: the directories skipped by evidence; nil for a state
	// recorded before those rules (see legacyNamed).
	generated map[string]bool
}

// legacyNamed are the directory names that captures before the evidence
// rules skipped by their name alone, whatever they held: in a state
// whose skips are unknown, such a directory absent from the tree was
// skipped, not absent.
var legacyNamed = map[string]bool{
	"build": true, "dist": true, "target": true, "venv": true, ".venv": true,
	"env": true, ".env": true, ".cache": true,
}

type treeIgnoreDir struct {
	m       *ignore.Matcher
	ignored bool
}

func newTreeIgnorer(loader manifest.Loader, src *cas.Store, root cas.Hash, skip *model.SkipInfo) *treeIgnorer {
	g := &treeIgnorer{loader: loader, src: src, root: root, dirs: map[string]*treeIgnoreDir{}}
	if skip != nil {
		g.generated = map[string]bool{}
		for _, p := range skip.Generated {
			g.generated[p] = true
		}
	}
	return g
}

// ignored reports whether rel is ignored in the tree.
func (g *treeIgnorer) ignored(ctx context.Context, rel string, isDir bool) (bool, error) {
	d, err := g.dir(ctx, manifest.ParentPath(rel))
	if err != nil {
		return false, err
	}
	if d.ignored {
		return true, nil
	}
	return g.judge(ctx, d.m, rel, isDir)
}

// judge applies m to rel as capture did in this state: a directory
// skipped by its name alone (node_modules) that the tree holds was
// captured (git tracked paths in it), so it was not ignored then. A
// directory left to evidence was skipped if the state's record says so;
// in a state recorded before the evidence rules, if its name was one
// skipped by name then and the tree lacks it.
func (g *treeIgnorer) judge(ctx context.Context, m *ignore.Matcher, rel string, isDir bool) (bool, error) {
	v := m.Judge(rel, isDir)
	switch {
	case v.Ignored && v.Source == ignore.SourceName:
	case v.Ignored:
		return true, nil
	case !isDir:
		return false, nil
	case g.generated != nil:
		return v.Probe != ignore.ProbeNone && g.generated[rel], nil
	case !legacyNamed[path.Base(rel)]:
		return false, nil
	}
	e, err := manifest.Find(ctx, g.loader, g.root, rel)
	if err != nil {
		return false, err
	}
	return e == nil || e.Kind != manifest.KindDir, nil
}

func (g *treeIgnorer) dir(ctx context.Context, rel string) (*treeIgnoreDir, error) {
	if d, ok := g.dirs[rel]; ok {
		return d, nil
	}
	d := &treeIgnoreDir{}
	if rel == "" {
		m, err := g.load(ctx, "", ignore.New())
		if err != nil {
			return nil, err
		}
		d.m = m
	} else {
		p, err := g.dir(ctx, manifest.ParentPath(rel))
		if err != nil {
			return nil, err
		}
		ig := p.ignored
		if !ig {
			if ig, err = g.judge(ctx, p.m, rel, true); err != nil {
				return nil, err
			}
		}
		if ig {
			d.ignored = true
		} else if d.m, err = g.load(ctx, rel, p.m); err != nil {
			return nil, err
		}
	}
	g.dirs[rel] = d
	return d, nil
}

// load pushes the ignore files the tree holds in directory rel.
func (g *treeIgnorer) load(ctx context.Context, rel string, m *ignore.Matcher) (*ignore.Matcher, error) {
	var rules []*ignore.Rules
	for _, name := range ignore.FileNames {
		p := manifest.JoinPath(rel, name)
		e, err := manifest.Find(ctx, g.loader, g.root, p)
		if err != nil {
			return nil, err
		}
		if e == nil || e.Kind != manifest.KindFile || e.Uncaptured || e.Hash.IsZero() {
			continue
		}
		rd, err := g.src.Open(ctx, e.Hash)
		if err != nil {
			return nil, fmt.Errorf("turnback: read %s of a stored state: %w", p, err)
		}
		data, err := io.ReadAll(rd)
		if c, ok := rd.(io.Closer); ok {
			c.Close()
		}
		if err != nil {
			return nil, fmt.Errorf("turnback: read %s of a stored state: %w", p, err)
		}
		ru := ignore.Parse(rel, data)
		ru.File = name
		rules = append(rules, ru)
	}
	return m.Push(rules...), nil
}

// dropIgnored removes from actions every path ignored in the state from
// (what is there now) or the state to (where the command goes), and the
// conflicts reported for them; it returns the notes saying so.
func (r *Repo) dropIgnored(ctx context.Context, loader manifest.Loader, actions []restore.Action, from, to cas.Hash, res *RestoreResult) ([]restore.Action, []PathNote, error) {
	if len(actions) == 0 {
		return actions, nil, nil
	}
	if err := refuseDotGit(actions); err != nil {
		return nil, nil, err
	}
	skFrom, err := r.skipInfoOfRoot(ctx, from)
	if err != nil {
		return nil, nil, err
	}
	skTo, err := r.skipInfoOfRoot(ctx, to)
	if err != nil {
		return nil, nil, err
	}
	gFrom, gTo := newTreeIgnorer(loader, r.store, from, skFrom), newTreeIgnorer(loader, r.store, to, skTo)
	isDir := func(e, other *manifest.Entry) bool {
		if e == nil {
			e = other
		}
		return e != nil && e.Kind == manifest.KindDir
	}
	var keep []restore.Action
	var notes []PathNote
	dropped := map[string]bool{}
	for _, a := range actions {
		why := ""
		ig, err := gTo.ignored(ctx, a.Path, isDir(a.New, a.Old))
		if err != nil {
			return nil, nil, err
		}
		if ig {
			why = "ignored in the state restored to; left as is"
		} else if ig, err = gFrom.ignored(ctx, a.Path, isDir(a.Old, a.New)); err != nil {
			return nil, nil, err
		} else if ig {
			why = "ignored in the current state; left as is"
		}
		if why == "" {
			keep = append(keep, a)
			continue
		}
		dropped[a.Path] = true
		if res == nil || !model.Parents(res)[a.Path] {
			notes = append(notes, PathNote{Path: a.Path, Reason: why, Kept: true})
		}
	}
	if res != nil && len(dropped) > 0 {
		var cs []PathNote
		for _, c := range res.Conflicts {
			if !dropped[c.Path] {
				cs = append(cs, c)
			}
		}
		res.Conflicts = cs
	}
	return keep, notes, nil
}
