package turnback

import (
	"context"
	"slices"
	"strings"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/walker"
)

// resultSkips returns what a restore's result skips: its start's skips,
// since the restore leaves every ignored path as it is, with the
// result's own TrackedIgnored, also returned alone for the capture memo.
// A path git tracks though a pattern ignores is absent in the result
// when its start or its goal lacked it and the result's tree does too:
// the restore deleted it, or left it absent. Carrying the start's list
// alone lost what the restore deleted, and with it the next redo's
// deletes (review45).
func (r *Repo) resultSkips(ctx context.Context, loader manifest.Loader, result, goal cas.Hash, skip *model.SkipInfo) (*model.SkipInfo, []string, error) {
	var cand []string
	if skip != nil {
		cand = append(cand, skip.TrackedIgnored...)
	}
	if !goal.IsZero() {
		gs, err := r.skipInfoOfRoot(ctx, goal)
		if err != nil {
			return nil, nil, err
		}
		if gs != nil {
			cand = append(cand, gs.TrackedIgnored...)
		}
	}
	slices.Sort(cand)
	cand = slices.Compact(cand)
	var out []string
	for _, p := range cand {
		e, err := manifest.Find(ctx, loader, result, strings.TrimSuffix(p, "/"))
		if err != nil {
			return nil, nil, err
		}
		if e == nil && len(out) < walker.MaxTrackedIgnored {
			out = append(out, p)
		}
	}
	if skip == nil {
		return nil, out, nil
	}
	s := *skip
	s.TrackedIgnored = out
	return &s, out, nil
}
