package stateignore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/restore"
	"github.com/turnback/turnback/walker/ignore"
)

// Tree answers whether a path is ignored under the ignore files of
// one stored tree.
type Tree struct {
	loader manifest.Loader
	src    *cas.Store
	root   cas.Hash
	dirs   map[string]*dirRules
	// generated: the directories skipped by evidence; nil for a state
	// recorded before those rules (see legacyNamed).
	generated map[string]bool
	// ruleFiles, ruleBlobs: the ignore files its capture applied but
	// skipped, with their content inline (an older record) or its blob.
	ruleFiles map[string][]byte
	ruleBlobs map[string]string
	// unknown: the directories whose rules the record lacks (one of
	// their ignore files skipped and not kept, or its blob gone).
	unknown map[string]bool
	// tracked: SkipInfo.TrackedIgnored, sorted (see listed).
	tracked []string
}

// legacyNamed are the directory names that captures before the evidence
// rules skipped by their name alone, whatever they held: in a state
// whose skips are unknown, such a directory absent from the tree was
// skipped, not absent.
var legacyNamed = map[string]bool{
	"build": true, "dist": true, "target": true, "venv": true, ".venv": true,
	"env": true, ".env": true, ".cache": true,
}

type dirRules struct {
	m       *ignore.Matcher
	ignored bool
	// unknown: the rules of this directory or one above are unknown
	// (Tree.unknown): a path below that the tree lacks counts as ignored.
	unknown bool
}

// New returns the Tree of state root, read through loader and src;
// skip is what its capture skipped by evidence (nil: unknown).
func New(loader manifest.Loader, src *cas.Store, root cas.Hash, skip *model.SkipInfo) *Tree {
	g := &Tree{loader: loader, src: src, root: root, dirs: map[string]*dirRules{}}
	if skip != nil {
		g.generated = map[string]bool{}
		for _, p := range skip.Generated {
			g.generated[p] = true
		}
		g.ruleFiles, g.ruleBlobs = skip.RuleFiles, skip.RuleBlobs
		g.unknown = map[string]bool{}
		for _, d := range skip.RulesUnknown {
			g.unknown[d] = true
		}
		g.tracked = slices.Sorted(slices.Values(skip.TrackedIgnored))
	}
	return g
}

// listed reports whether the state's record says git tracked rel, or
// paths below directory rel, when it was captured (SkipInfo.TrackedIgnored):
// rel is a file listed, or lies in a directory listed (absent with all
// it held), or is a directory listed or above a path listed. Such a
// path the tree lacks was absent, not ignored: git never ignores what
// it tracks.
func (g *Tree) listed(rel string, isDir bool) bool {
	if len(g.tracked) == 0 || rel == "" {
		return false
	}
	if _, ok := slices.BinarySearch(g.tracked, rel); ok && !isDir {
		return true
	}
	for i := range len(rel) + 1 {
		// A directory listed: rel below it, or rel itself if a directory.
		if i < len(rel) && rel[i] == '/' || i == len(rel) && isDir {
			if _, ok := slices.BinarySearch(g.tracked, rel[:i]+"/"); ok {
				return true
			}
		}
	}
	if !isDir {
		return false
	}
	i, _ := slices.BinarySearch(g.tracked, rel+"/")
	return i < len(g.tracked) && strings.HasPrefix(g.tracked[i], rel+"/")
}

// Ignored reports whether rel is ignored in the tree.
func (g *Tree) Ignored(ctx context.Context, rel string, isDir bool) (bool, error) {
	d, err := g.dir(ctx, manifest.ParentPath(rel))
	if err != nil {
		return false, err
	}
	if d.ignored {
		return true, nil
	}
	ig, _, err := g.judge(ctx, d.m, rel, isDir)
	if err != nil || ig || !d.unknown || g.listed(rel, isDir) {
		return ig, err
	}
	// Rules unknown here: what the capture did not hold may have been
	// ignored. Left alone: data safety beats a complete undo.
	e, err := manifest.Find(ctx, g.loader, g.root, rel)
	return e == nil, err
}

// judge applies m to rel as capture did in this state, with v its
// verdict. A directory skipped by its name alone (node_modules) that
// the tree holds was captured (git tracked paths in it), so it was not
// ignored then; nor was one the record lists (listed). So was a path an ignore file's pattern ignores that the
// tree holds (git tracked it: a file added with "git add -f", or a
// directory holding such paths), or that the record lists (listed). One
// the tree lacks is ignored: it may have existed, untracked. A
// directory left to evidence was skipped if the state's record says
// so; in a state recorded before the evidence rules, if its name was
// one skipped by name then and the tree lacks it.
func (g *Tree) judge(ctx context.Context, m *ignore.Matcher, rel string, isDir bool) (ignored bool, v ignore.Verdict, err error) {
	v = m.Judge(rel, isDir)
	switch {
	case v.Ignored && v.Source == ignore.SourceFile:
		held, err := g.holds(ctx, rel, isDir)
		return !held && !g.listed(rel, isDir), v, err
	case v.Ignored && v.Source == ignore.SourceName:
	case v.Ignored:
		return true, v, nil
	case !isDir:
		return false, v, nil
	case g.generated != nil:
		return v.Probe != ignore.ProbeNone && g.generated[rel], v, nil
	case !legacyNamed[path.Base(rel)]:
		return false, v, nil
	}
	held, err := g.holds(ctx, rel, true)
	return !held && !g.listed(rel, true), v, err
}

// holds reports whether the tree holds rel as a directory (isDir) or
// as a file or symlink.
func (g *Tree) holds(ctx context.Context, rel string, isDir bool) (bool, error) {
	e, err := manifest.Find(ctx, g.loader, g.root, rel)
	if err != nil || e == nil {
		return false, err
	}
	return (e.Kind == manifest.KindDir) == isDir, nil
}

func (g *Tree) dir(ctx context.Context, rel string) (*dirRules, error) {
	if d, ok := g.dirs[rel]; ok {
		return d, nil
	}
	d := &dirRules{}
	if rel == "" {
		m, unknown, err := g.load(ctx, "", ignore.New())
		if err != nil {
			return nil, err
		}
		d.m, d.unknown = m, unknown
	} else {
		p, err := g.dir(ctx, manifest.ParentPath(rel))
		if err != nil {
			return nil, err
		}
		ig, v := p.ignored, ignore.Verdict{}
		if !ig {
			if ig, v, err = g.judge(ctx, p.m, rel, true); err != nil {
				return nil, err
			}
		}
		m := p.m
		if !ig && v.Ignored && v.Source == ignore.SourceFile {
			m = m.Exclude(v) // held for its tracked paths: only those
		}
		var unknown bool
		if ig {
			d.ignored = true
		} else if d.m, unknown, err = g.load(ctx, rel, m); err != nil {
			return nil, err
		}
		d.unknown = p.unknown || unknown
	}
	g.dirs[rel] = d
	return d, nil
}

// load pushes the ignore files of directory rel: those the tree holds,
// and those its capture skipped but applied (the record's). unknown:
// the record lacks the rules of one (see Tree.unknown).
func (g *Tree) load(ctx context.Context, rel string, m *ignore.Matcher) (_ *ignore.Matcher, unknown bool, _ error) {
	var rules []*ignore.Rules
	unknown = g.unknown[rel]
	for _, name := range ignore.FileNames {
		p := manifest.JoinPath(rel, name)
		e, err := manifest.Find(ctx, g.loader, g.root, p)
		if err != nil {
			return nil, false, err
		}
		var h cas.Hash
		switch data, inline := g.ruleFiles[p]; {
		case inline && e == nil:
			ru := ignore.Parse(rel, data)
			ru.File = name
			rules = append(rules, ru)
			continue
		case e == nil && g.ruleBlobs[p] != "":
			if h, err = cas.ParseHash(g.ruleBlobs[p]); err != nil {
				unknown = true
				continue
			}
		case e == nil || e.Kind != manifest.KindFile || e.Uncaptured || e.Hash.IsZero():
			continue
		default:
			h = e.Hash
		}
		data, err := g.read(ctx, h)
		if e == nil && errors.Is(err, cas.ErrNotFound) {
			unknown = true // the record's blob is gone
			continue
		}
		if err != nil {
			return nil, false, fmt.Errorf("turnback: read %s of a stored state: %w", p, err)
		}
		ru := ignore.Parse(rel, data)
		ru.File = name
		rules = append(rules, ru)
	}
	return m.Push(rules...), unknown, nil
}

// read returns content h.
func (g *Tree) read(ctx context.Context, h cas.Hash) ([]byte, error) {
	rd, err := g.src.Open(ctx, h)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(rd)
	if c, ok := rd.(io.Closer); ok {
		c.Close()
	}
	return data, err
}

// Drop removes from actions every path ignored in the state from
// (what is there now) or the state to (where the command goes), and the
// conflicts reported for them in res (nil: none); it returns the notes
// saying so. But for one: a path the state to holds and does not
// ignore, which from ignores but neither holds nor has on disk (absent:
// nothing there now), is made: a turn that deleted it and added a rule
// for it is undone whole. The restore refuses if something is there by
// the time it writes. A path of res's Unseen (the turns left something
// there, no state holds it) that from ignores and that is on disk gets
// the note of one from ignores: the command leaves it.
func Drop(ctx context.Context, gFrom, gTo *Tree, actions []restore.Action, res *model.RestoreResult, absent func(path string) bool) ([]restore.Action, []model.PathNote, error) {
	isDir := func(e, other *manifest.Entry) bool {
		if e == nil {
			e = other
		}
		return e != nil && e.Kind == manifest.KindDir
	}
	var keep []restore.Action
	var notes []model.PathNote
	dropped := map[string]bool{}
	for _, a := range actions {
		why := ""
		ig, err := gTo.Ignored(ctx, a.Path, isDir(a.New, a.Old))
		if err != nil {
			return nil, nil, err
		}
		if ig {
			why = "ignored in the state restored to; left as is"
		} else if ig, err = gFrom.Ignored(ctx, a.Path, isDir(a.Old, a.New)); err != nil {
			return nil, nil, err
		} else if ig && !(a.Old == nil && a.New != nil && absent != nil && absent(a.Path)) {
			why = "ignored in the current state; left as is"
		}
		if why == "" {
			keep = append(keep, a)
			continue
		}
		dropped[a.Path] = true
		if res == nil || !model.Parents(res)[a.Path] {
			notes = append(notes, model.PathNote{Path: a.Path, Reason: why, Kept: true})
		}
	}
	if res != nil {
		left, err := leftIgnored(ctx, gFrom, res, absent)
		if err != nil {
			return nil, nil, err
		}
		notes = append(notes, left...)
	}
	if res != nil && len(dropped) > 0 {
		var cs []model.PathNote
		for _, c := range res.Conflicts {
			if !dropped[c.Path] {
				cs = append(cs, c)
			}
		}
		res.Conflicts = cs
	}
	return keep, notes, nil
}

// leftIgnored returns the notes of the paths of res's Unseen that gFrom
// ignores and that are on disk (absent nil: taken as there).
func leftIgnored(ctx context.Context, gFrom *Tree, res *model.RestoreResult, absent func(path string) bool) ([]model.PathNote, error) {
	var notes []model.PathNote
	unseen := model.Unseen(res)
	for _, p := range slices.Sorted(maps.Keys(unseen)) {
		ig, err := gFrom.Ignored(ctx, p, unseen[p])
		if err != nil {
			return nil, err
		}
		if ig && (absent == nil || !absent(p)) {
			notes = append(notes, model.PathNote{Path: p, Reason: "ignored in the current state; left as is", Kept: true})
		}
	}
	return notes, nil
}
