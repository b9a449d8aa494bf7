package turnback

// Dry runs (UndoOptions.DryRun, RedoOptions.DryRun,
// RestoreOptions.DryRun): the plan execute would apply, made the same
// way and reported in the same lists, with nothing written.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/restore"
)

// preview plans actions as execute would and returns what it would
// report, the paths not restorable for want of content (for
// model.StuckTurns), and the plan. res holds the command's conflicts and
// parent directories: with conflicts and no force the preview is the
// conflicts alone (Stopped), as the command would change nothing.
func (r *Repo) preview(ctx context.Context, actions []restore.Action, res *RestoreResult, ignored []PathNote, force bool) (*Preview, map[string]bool, *restore.Plan, error) {
	return r.previewAfter(ctx, nil, actions, res, ignored, force)
}

// previewAfter is preview for a step that runs after the plans before
// (a dry run of several redos): its plan sees the disk as they would
// leave it.
func (r *Repo) previewAfter(ctx context.Context, before []*restore.Plan, actions []restore.Action, res *RestoreResult, ignored []PathNote, force bool) (*Preview, map[string]bool, *restore.Plan, error) {
	if len(res.Conflicts) > 0 && !force {
		return &Preview{Conflicts: res.Conflicts, Stopped: true}, nil, nil, nil
	}
	acts := make([]restore.Action, len(actions))
	copy(acts, actions)
	_, notes, _, err := r.refActions(ctx, acts)
	if err != nil {
		return nil, nil, nil, err
	}
	root, err := os.OpenRoot(r.workTree)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("turnback: open work tree: %w", err)
	}
	defer root.Close()
	plan, err := restore.NewPlanAfter(ctx, root, before, acts)
	if err != nil {
		return nil, nil, nil, err
	}
	p := &Preview{}
	kept := map[string]bool{}
	for _, s := range plan.Kept {
		kept[s.Path] = true
	}
	for _, a := range plan.Actions {
		switch {
		case kept[a.Path]:
		case a.New == nil:
			p.Deleted = append(p.Deleted, a.Path)
		case a.Old == nil:
			p.Created = append(p.Created, a.Path)
		default:
			p.Restored = append(p.Restored, a.Path)
		}
	}
	var noContent map[string]bool
	for _, s := range plan.Blocked {
		if model.Parents(res)[s.Path] {
			continue
		}
		reason := s.Reason
		if why, ok := notes[s.Path]; ok {
			reason = why
			noContent = addPath(noContent, s.Path)
		}
		p.NotRestorable = append(p.NotRestorable, PathNote{Path: s.Path, Reason: reason})
	}
	for _, s := range plan.Kept {
		p.NotRestorable = append(p.NotRestorable, PathNote{Path: s.Path, Reason: model.KeptReason(s.Reason), Kept: !strings.HasPrefix(s.Reason, "changed ")})
	}
	p.NotRestorable = append(p.NotRestorable, ignored...)
	p.Conflicts = model.Overwritten(&RestoreResult{Restored: p.Restored, Deleted: p.Deleted, Created: p.Created}, res.Conflicts)
	return p, noContent, plan, nil
}

// predict returns the state a restore of plan from current would leave
// (as execute computes it, without a checkpoint's amendments): a dry
// run of several redos plans each against the one before's.
func (r *Repo) predict(ctx context.Context, current cas.Hash, plan *restore.Plan) (cas.Hash, error) {
	changes := map[string]*manifest.Entry{}
	for _, a := range plan.Actions {
		changes[a.Path] = a.New
	}
	if len(changes) == 0 {
		return current, nil
	}
	w := r.store.NewWriter()
	defer w.Cancel()
	h, err := manifest.Edit(ctx, r.loader(), w, current, changes)
	if errors.Is(err, manifest.ErrNoParent) {
		// A path made in a directory current skipped (see execute).
		root, rerr := os.OpenRoot(r.workTree)
		if rerr != nil {
			return h, fmt.Errorf("turnback: open work tree: %w", rerr)
		}
		defer root.Close()
		h, err = r.editSkippedParents(ctx, r.loader(), w, root, current, changes)
	}
	if err != nil {
		return h, err
	}
	return h, w.Flush()
}
