package turnback

// Scoped capture: an undo or redo without a watcher reads only the
// paths it may write, the directories on the way to them and what
// decides those directories' ignore rules (issue #34). The rest of the
// folder is taken from its latest capture unread, so the checkpoint
// vouches for those paths only (partial.go).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/internal/stateignore"
	"github.com/turnback/turnback/internal/treepath"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/walker"
	"github.com/turnback/turnback/walker/gitindex"
)

// latestEntries are the records that make root the newest recorded
// state: m/latest, and the memo of the capture it comes from (captured:
// the root this process captured; root itself, or the checkpoint a
// restore's result was made from, which skips what the result skips).
func (r *Repo) latestEntries(root, captured cas.Hash) []cas.Entry {
	tracked, _ := r.gitIdx.TrackedIgnored(captured)
	return r.latestEntriesTracked(root, captured, tracked)
}

// latestEntriesTracked is latestEntries with the memo's TrackedIgnored
// given: a restore's result lacks what its start lacked, and what it
// deleted (resultSkips).
func (r *Repo) latestEntriesTracked(root, captured cas.Hash, tracked []string) []cas.Entry {
	m := model.CaptureMemo{Root: root.String(), WorkTree: r.workTree, SizeLimit: r.opts.SizeLimit, LargeDirFiles: r.opts.LargeDirFiles,
		Index: r.gitIdx.Stamps(captured)}
	m.Skipped, _ = r.gitIdx.Skipped(captured)
	m.TrackedIgnored = tracked
	if r.last.root == captured {
		m.Files = r.last.files
	}
	return []cas.Entry{{Key: []byte(model.KeyLatest), Value: []byte(root.String())},
		{Key: []byte(model.KeyCaptureMemo), Value: model.EncodeJSON(m)}}
}

// scopeBase returns the state a scoped capture can start from and its
// file count: the newest recorded state, when its memo says it was
// captured here with today's settings and git indexes. Zero when
// anything is doubtful: the capture then reads everything.
func (r *Repo) scopeBase(ctx context.Context) (cas.Hash, int64, error) {
	latest, err := r.latest(ctx)
	if err != nil || latest.IsZero() {
		return cas.Hash{}, 0, err
	}
	data, err := r.backend.Get(ctx, []byte(model.KeyCaptureMemo))
	if errors.Is(err, cas.ErrNotFound) {
		return cas.Hash{}, 0, nil
	}
	if err != nil {
		return cas.Hash{}, 0, err
	}
	var m model.CaptureMemo
	if json.Unmarshal(data, &m) != nil || m.Root != latest.String() || m.WorkTree != r.workTree ||
		m.SizeLimit != r.opts.SizeLimit || m.LargeDirFiles != r.opts.LargeDirFiles {
		return cas.Hash{}, 0, nil
	}
	if !gitindex.Current(m.Index) {
		return cas.Hash{}, 0, nil // a "git add" may have made an ignored directory tracked
	}
	if ok, err := r.store.HasContent(ctx, latest); err != nil || !ok {
		return cas.Hash{}, 0, err
	}
	r.gitIdx.Adopt(latest, m.Index, m.Skipped)
	r.gitIdx.AdoptTrackedIgnored(latest, m.TrackedIgnored)
	return latest, m.Files, nil
}

// captureScope captures the work tree for an undo or redo that may
// write the paths scope: without a watcher (a command that may start a
// daemon hands a scoped capture to none: captureIn), and when the latest state
// can be trusted as a base, only those paths and the directories above
// them are read, and in those directories only the names on the way
// and the ignore files (so ancestor ignore files are read again); the
// rest is the base's. Otherwise, or when the scope is more than a
// quarter of the folder's files, everything is read.
func (r *Repo) captureScope(ctx context.Context, scope []string) (*captured, error) {
	if r.watch != nil {
		return r.capture(ctx)
	}
	base, files, err := r.scopeBase(ctx)
	if err != nil {
		return nil, err
	}
	if base.IsZero() || int64(len(scope)) > files/4 {
		return r.capture(ctx)
	}
	dirty := treepath.Dirs(scope)
	res, err := r.captureIn(ctx, false, &scopePlan{base: base, dirty: dirty, names: treepath.Names(scope)})
	if err != nil {
		return nil, err
	}
	if changed, err := stateignore.RulesChanged(ctx, manifest.NewCachingLoader(r.loader()), base, res.Root, dirty); err != nil || changed || ignoredRules(res.Skipped, dirty) {
		if err != nil {
			return nil, err
		}
		// The directories taken from the base were judged by other
		// rules: what they hold may be ignored now, or no longer.
		return r.capture(ctx)
	}
	if res.Stats.DirsReused > 0 {
		// Stats count what was read: the folder's count is about the base's.
		r.last.files = files
	}
	return res, nil
}

// scopePlan is the base and the directories of a scoped capture, and
// the names read in each of them that is not itself a path of the
// scope (see walker.Options.Names).
type scopePlan struct {
	base  cas.Hash
	dirty map[string]bool
	names map[string][]string
}

// apply sets opts up for the scoped capture.
func (s *scopePlan) apply(opts *walker.Options) {
	opts.Base, opts.Previous = s.base, s.base
	opts.Dirty = func(rel string) bool { return s.dirty[rel] }
	opts.Uncounted = true
	if s.names != nil {
		opts.Names = func(rel string) ([]string, bool) {
			n, ok := s.names[rel]
			return n, ok
		}
	}
}

// lastCapture is the root and file count of the Repo's last capture.
type lastCapture struct {
	root  cas.Hash
	files int64
}

// scopeFirst returns what an undo of the session's last n turns (at
// or below specs) reverts, when the session has no open turn (then
// nothing closes, and the scope is known before the capture); nil when
// it has one, or no turn.
func (r *Repo) scopeFirst(ctx context.Context, loader manifest.Loader, sess *model.SessionRecord, n int, specs, given []string) (*undoScope, error) {
	k := len(sess.Turns)
	if k == 0 {
		return nil, nil
	}
	t, err := r.loadTurn(ctx, sess.Name, sess.Turns[k-1])
	if err != nil || t.Open() {
		return nil, err
	}
	return r.scopeOf(ctx, loader, sess.Turns[k-min(n, k):], nil, specs, given)
}

// paths returns every path the undo may write: what its turns changed
// (of the paths given).
func (sc *undoScope) paths() []string {
	return treepath.SortedKeys(sc.left)
}

// redoScope returns every path the next steps redo steps of sess's
// redo stack may write (see planRedo), and whether the session has an
// open turn (then nil: the redo closes it, and reads everything).
func (r *Repo) redoScope(ctx context.Context, sess *model.SessionRecord, steps int) ([]string, bool, error) {
	if k := len(sess.Turns); k > 0 {
		t, err := r.loadTurn(ctx, sess.Name, sess.Turns[k-1])
		if err != nil || t.Open() {
			return nil, err == nil, err
		}
	}
	loader := manifest.NewCachingLoader(r.loader())
	set := map[string]bool{}
	add := func(a, b cas.Hash) error {
		return manifest.Diff(ctx, loader, a, b, func(c manifest.Change) error {
			set[c.Path] = true
			return nil
		})
	}
	for i := len(sess.Redo) - 1; i >= 0 && steps > 0; i-- {
		g := &sess.Redo[i]
		if g.IsPartial() {
			expected, err := cas.ParseHash(g.Expected)
			if err != nil {
				return nil, false, fmt.Errorf("%w: session %s: %v", cas.ErrCorrupt, r.session, err)
			}
			goal, err := cas.ParseHash(g.Checkpoint)
			if err != nil {
				return nil, false, fmt.Errorf("%w: session %s: %v", cas.ErrCorrupt, r.session, err)
			}
			if err := add(expected, goal); err != nil {
				return nil, false, err
			}
			steps--
			continue
		}
		for _, n := range g.Turns {
			if steps == 0 {
				break
			}
			t, err := r.loadTurn(ctx, r.session, n)
			if err != nil {
				return nil, false, err
			}
			if err := add(t.Before, t.After); err != nil {
				return nil, false, err
			}
			steps--
		}
	}
	return treepath.SortedKeys(set), false, nil
}

// captureRedo captures the work tree for the next steps redo steps of
// sess: scoped to their paths (also returned), unless the session has
// an open turn or nothing to redo.
func (r *Repo) captureRedo(ctx context.Context, sess *model.SessionRecord, steps int) (*captured, []string, error) {
	if len(sess.Redo) == 0 {
		snap, err := r.capture(ctx)
		return snap, nil, err
	}
	scope, open, err := r.redoScope(ctx, sess, steps)
	if err != nil {
		return nil, nil, err
	}
	if open {
		snap, err := r.capture(ctx)
		return snap, nil, err
	}
	snap, err := r.captureScope(ctx, scope)
	return snap, scope, err
}
