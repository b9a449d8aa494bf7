package turnback

import (
	"context"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/internal/stateignore"
	"github.com/turnback/turnback/internal/treepath"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/walker"
)

// changes lists the differences from state a to state b, but for the
// paths b lacks because its capture skipped them (notDeleted), which it
// returns apart. live, if not nil, is the capture b comes from.
func (r *Repo) changes(ctx context.Context, a, b cas.Hash, live *walker.Result) ([]Change, []Ignored, error) {
	var out []Change
	deleted := false
	err := manifest.Diff(ctx, r.loader(), a, b, func(c manifest.Change) error {
		out = append(out, Change{Path: c.Path, Kind: c.Kind, What: c.Kind.String(), Old: c.Old, New: c.New})
		deleted = deleted || c.New == nil
		return nil
	})
	if err != nil || !deleted {
		return out, nil, err
	}
	var skip *model.SkipInfo
	var list []Ignored
	if live != nil {
		skip, list = model.SkipInfoOf(live.Skipped), live.Skipped
		skip.TrackedIgnored = live.TrackedIgnored
	} else if skip, err = r.skipInfoOfRoot(ctx, b); err != nil {
		return nil, nil, err
	}
	g := stateignore.New(r.loader(), r.store, b, skip)
	return notDeleted(ctx, g, list, out)
}

// notDeleted splits changes, a diff to the state g judges: a path that
// state lacks because its capture skipped it (a marker or an ignore
// rule came since) was not deleted. It returns the other changes and
// those paths, outermost only, with why. live is that capture's own
// list of what it skipped, if known: it names the marker found.
func notDeleted(ctx context.Context, g *stateignore.Tree, live []Ignored, changes []Change) ([]Change, []Ignored, error) {
	var keep []Change
	var skipped []Ignored
	for _, c := range changes {
		if c.New != nil || c.Old == nil {
			keep = append(keep, c)
			continue
		}
		// A diff lists a directory before what it held.
		if n := len(skipped); n > 0 && treepath.Under(c.Path, skipped[n-1].Path) {
			continue
		}
		ig, err := g.Skip(ctx, c.Path, c.Old.Kind == manifest.KindDir)
		if err != nil {
			return nil, nil, err
		}
		if ig == nil {
			keep = append(keep, c)
			continue
		}
		for _, l := range live {
			if treepath.Under(c.Path, l.Path) {
				ig = &l
				ig.Path, ig.Dir, ig.Rules = c.Path, c.Old.Kind == manifest.KindDir, ""
				break
			}
		}
		skipped = append(skipped, *ig)
	}
	return keep, skipped, nil
}
