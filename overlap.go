package turnback

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/internal/pathstate"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/restore"
)

// Turns of two sessions that overlap in time. Two agents working in one
// folder at once each see the other's writes inside their own turn: a
// turn is the difference of two captures. Which agent wrote a path is
// not recorded; a change made after a second turn began is taken as
// that turn's, the one most recently started. So an undo leaves a path
// that a turn of another session, begun during the undone turns,
// changed after it began: such a path is a conflict. The undo changes
// nothing unless forced, and says which session's turn changed it too.

// overlapConflicts adds to res a conflict for each path of actions that
// a turn of another session running at the same time as turns changed
// too, unless the path is a conflict already.
func (r *Repo) overlapConflicts(ctx context.Context, loader manifest.Loader, turns []*Turn, left map[string]*manifest.Entry, now cas.Hash, actions []restore.Action, res *RestoreResult) error {
	why, err := r.overlapReasons(ctx, loader, turns, left, now)
	if err != nil || len(why) == 0 {
		return err
	}
	known := map[string]bool{}
	for _, c := range res.Conflicts {
		known[c.Path] = true
	}
	for _, a := range actions {
		if w := why[a.Path]; w != "" && !known[a.Path] {
			res.Conflicts = append(res.Conflicts, PathNote{Path: a.Path, Reason: w})
			known[a.Path] = true
		}
	}
	slices.SortFunc(res.Conflicts, func(a, b PathNote) int { return strings.Compare(a.Path, b.Path) })
	return nil
}

// overlapReasons returns, for each path of left that a turn of another
// session changed after it began during turns, the conflict reason that
// names that turn. now is the folder's state: an open turn of another
// session is measured up to it.
func (r *Repo) overlapReasons(ctx context.Context, loader manifest.Loader, turns []*Turn, left map[string]*manifest.Entry, now cas.Hash) (map[string]string, error) {
	if len(turns) == 0 || len(left) == 0 {
		return nil, nil
	}
	from, to := turns[0].Started, time.Time{}
	for _, t := range turns {
		if t.Started.Before(from) {
			from = t.Started
		}
		end := t.Ended
		if t.Open() || end.IsZero() {
			end = r.now()
		}
		if end.After(to) {
			to = end
		}
	}
	recs, err := r.sessions(ctx)
	if err != nil {
		return nil, err
	}
	var out map[string]string
	for _, s := range recs {
		if s.Name == r.session {
			continue
		}
		// Newest first: once a turn began before the undone ones, so
		// did every older one.
		for i := len(s.Turns) - 1; i >= 0; i-- {
			u, err := r.loadTurn(ctx, s.Name, s.Turns[i])
			if err != nil {
				return nil, err
			}
			if !u.Started.After(from) {
				break
			}
			if !u.Started.Before(to) {
				continue
			}
			if err := overlapPaths(ctx, loader, u, s.Name, left, now, &out); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// overlapPaths adds to *out the paths of left that turn u of session
// name changed after it began: not yet as left there at its start, and
// different at its end (now, while it is open).
func overlapPaths(ctx context.Context, loader manifest.Loader, u *Turn, name string, left map[string]*manifest.Entry, now cas.Hash, out *map[string]string) error {
	after := u.After
	if u.Open() || after.IsZero() {
		after = now
	}
	for p, l := range left {
		if (*out)[p] != "" {
			continue
		}
		b, err := manifest.Find(ctx, loader, u.Before, p)
		if err != nil {
			return err
		}
		if pathstate.Same(b, l) {
			continue // changed before u began
		}
		a, err := manifest.Find(ctx, loader, after, p)
		if err != nil {
			return err
		}
		if pathstate.Same(b, a) {
			continue
		}
		if *out == nil {
			*out = map[string]string{}
		}
		(*out)[p] = model.OverlapReason(u.N, sessionLabel(name))
	}
	return nil
}

// sessionLabel is how a conflict names a session: a long name (an
// agent's conversation id) by its first 8 bytes, as lists show it.
func sessionLabel(name string) string {
	if len(name) <= 24 {
		return name
	}
	for i := range name {
		if i >= 8 {
			return name[:i]
		}
	}
	return name
}
