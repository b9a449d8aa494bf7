package turnback

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
)

// ruleBlobs returns the blobs holding the rules of the ignored ignore
// files of state h (model.SnapshotRecord.RuleBlobs): its record's, and
// those of this process's memory of its capture (walker.GitIndexes),
// which a watcher's unrecorded base needs. A hash that does not parse
// names no blob.
func (r *Repo) ruleBlobs(ctx context.Context, h cas.Hash) ([]cas.Hash, error) {
	var out []cas.Hash
	add := func(s string) {
		if b, err := cas.ParseHash(s); err == nil && !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	var rec model.SnapshotRecord
	if _, err := r.getJSON(ctx, model.SnapKey(h), &rec); err != nil {
		return nil, err
	}
	for _, s := range rec.RuleBlobs {
		add(s)
	}
	if sk, ok := r.gitIdx.Skipped(h); ok {
		for _, ig := range sk {
			if ig.Rules != "" {
				add(ig.Rules)
			}
		}
	}
	return out, nil
}

// markRules adds to set the rule blobs of the live states (ruleBlobs):
// a state's record names them, not its tree. One the store lacks is
// not kept (stateignore then takes its directory's rules as unknown).
func (r *Repo) markRules(ctx context.Context, live map[cas.Hash]bool, set cas.LiveSet) error {
	for h := range live {
		blobs, err := r.ruleBlobs(ctx, h)
		if err != nil {
			return err
		}
		for _, b := range blobs {
			if ok, err := r.store.HasContent(ctx, b); err != nil || !ok {
				if err != nil {
					return err
				}
				continue
			}
			if err := r.store.MarkContent(ctx, b, set); err != nil {
				return fmt.Errorf("turnback: gc: rules of state %s: %w (nothing was removed)", h.Short(), err)
			}
		}
	}
	return nil
}

// verifyRules checks the rule blobs of snapshot s's record, as Verify
// checks its tree's content: a missing or damaged one is a problem
// named by the ignore file's path.
func (r *Repo) verifyRules(ctx context.Context, s cas.Hash, seen map[cas.Hash]bool, out *VerifyResult) error {
	var rec model.SnapshotRecord
	if _, err := r.getJSON(ctx, model.SnapKey(s), &rec); err != nil {
		return err
	}
	for _, p := range slices.Sorted(maps.Keys(rec.RuleBlobs)) {
		why := ""
		b, err := cas.ParseHash(rec.RuleBlobs[p])
		switch {
		case err != nil:
			why = fmt.Sprintf("kept rules of an ignored ignore file: %v", err)
		case seen[b]:
			continue
		default:
			seen[b] = true
			out.Contents++
			if err := r.store.Verify(ctx, b, nil); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				why = "kept rules of an ignored ignore file: " + err.Error()
				delete(seen, b) // named again for each state that needs it
			}
		}
		if why != "" {
			out.Problems = append(out.Problems, VerifyProblem{Snapshot: s.String(), Path: p, Err: why})
		}
	}
	return nil
}
