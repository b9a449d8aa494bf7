package stateignore

import (
	"context"
	"path"

	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/walker"
	"github.com/turnback/turnback/walker/ignore"
)

// Skip is Ignored with why, in the words of a capture's list of what
// it skipped (walker.Ignored): nil when the tree does not ignore rel.
// The record keeps no marker, so a generated directory has no Evidence.
func (g *Tree) Skip(ctx context.Context, rel string, isDir bool) (*walker.Ignored, error) {
	if ig, err := g.Ignored(ctx, rel, isDir); err != nil || !ig {
		return nil, err
	}
	out := &walker.Ignored{Path: rel, Dir: isDir}
	d, err := g.dir(ctx, manifest.ParentPath(rel))
	if err != nil {
		return nil, err
	}
	if d.ignored {
		out.Reason = "inside an ignored directory"
		return out, nil
	}
	_, v, err := g.judge(ctx, d.m, rel, isDir)
	if err != nil {
		return nil, err
	}
	switch {
	case v.Ignored && v.Source == ignore.SourceFile:
		out.Rule, out.Reason = "file", v.Reason()
		out.File, out.Line = path.Join(v.Rules.Base, v.Rules.File), v.Line
	case v.Ignored && v.Source == ignore.SourceName:
		out.Rule, out.Reason = "name", v.Reason()
	case isDir && g.generated[rel]:
		out.Rule, out.Reason = "evidence", "generated"
	case isDir && g.generated == nil && legacyNamed[path.Base(rel)]:
		out.Rule, out.Reason = "name", "built-in name, in a capture before the evidence rules"
	default:
		out.Reason = "the state's ignore rules are unknown here"
	}
	return out, nil
}
