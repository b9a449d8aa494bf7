package turnback

// The result of a restore that rewrites ignore rules (or makes a path
// the state it starts from ignores: ignored_states.go). Its planned
// result, the checkpoint with the restore's changes, keeps the
// checkpoint's skips: paths the new rules un-ignore are missing from
// it, and paths they ignore are still in it. So once the files are in
// place, before the records are committed, the folder is captured again
// (new directories judged against the planned result), and the result
// takes from that capture what the rules decide: the paths it skipped,
// and those the restore did not write that the checkpoint's rules
// ignored. Every other path is as planned, so an edit made meanwhile
// stays a change. Recovery does the same when it finishes such a
// restore, whatever the user did since.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/internal/stateignore"
	"github.com/turnback/turnback/manifest"
)

// settleSafely settles batch m (settle), its checkpoint safe first: what
// the store holds unsynced (the amended checkpoint's trees) is made
// durable before the capture writes anything, since a write the store
// fails (a full disk) drops every unsynced one. The capture's writes
// are made durable apart from the records: failing that, m keeps its
// planned result, whose records fit the room the commit reserved.
// settled, if not nil, receives the new result.
func (r *Repo) settleSafely(ctx context.Context, m *model.MetaBatch, settled *cas.Hash) error {
	if err := r.backend.Sync(); err != nil {
		return err
	}
	next := *m
	h := r.settle(ctx, &next)
	if h.IsZero() || r.backend.Sync() != nil {
		return nil
	}
	if ok, err := r.store.HasContent(context.WithoutCancel(ctx), h); err != nil || !ok {
		return nil
	}
	*m = next
	if settled != nil {
		*settled = h
	}
	return nil
}

// settle replaces the planned result of batch m, which asks for it
// (MetaBatch.Recapture), by the folder captured now where the rules
// decide (byRules), and returns the new result. When the capture fails, or finds the planned result, m
// is left as it is and the hash is zero: the restore is done, and its
// records are committed either way.
func (r *Repo) settle(ctx context.Context, m *model.MetaBatch) cas.Hash {
	cp, err1 := cas.ParseHash(m.Checkpoint)
	planned, err2 := cas.ParseHash(m.Result)
	if err1 != nil || err2 != nil {
		return cas.Hash{}
	}
	ctx = context.WithoutCancel(ctx) // the files changed: finish
	// New directories are judged against the planned result: one the
	// restore wrote whole stays captured.
	snap, err := r.captureSince(ctx, planned)
	if err != nil {
		return cas.Hash{}
	}
	result, err := r.byRules(ctx, m, cp, planned, snap)
	if err != nil || result == planned {
		return cas.Hash{}
	}
	// Partial as the planned result was: an undo's or redo's result
	// vouches for its paths (partial.go), whatever its capture read.
	var scope *vouch
	if m.Scope != nil {
		scope = newVouch(m.Scope)
	}
	rec, err := r.stateEntry(ctx, result, model.KindResult, model.SkipInfoOfResult(snap.Result), scope)
	if err != nil {
		return cas.Hash{}
	}
	*m = resettle(*m, cp, planned, result, rec)
	return result
}

// byRules returns the capture snap with every path the rules do not
// decide as planned: as the restore wrote it, or as it was before. The
// rules decide a path the capture skipped, and one the restore did not
// write that the checkpoint's rules ignored: the capture's is the only
// word on it. So an edit made since
// the restore started, also after a crash and before its recovery,
// stays a change. Directories keep the capture's owners (Diff leaves
// them alone where a side has none), and one captured on one side only
// is the capture's.
func (r *Repo) byRules(ctx context.Context, m *model.MetaBatch, cp, planned cas.Hash, snap *captured) (cas.Hash, error) {
	loader := manifest.NewCachingLoader(r.loader())
	skipped := map[string]bool{}
	for _, s := range snap.Skipped {
		skipped[s.Path] = true
	}
	skip, err := r.checkpointSkips(ctx, m, cp)
	if err != nil {
		return cas.Hash{}, err
	}
	before := stateignore.New(loader, r.store, cp, skip)
	written := map[string]bool{} // the restore's paths: as planned, unless skipped now
	err = manifest.Diff(ctx, loader, cp, planned, func(c manifest.Change) error {
		written[c.Path] = true
		return nil
	})
	if err != nil {
		return cas.Hash{}, err
	}
	decided := map[string]bool{} // paths that are the capture's, with all below them
	isDir := func(e *manifest.Entry) bool { return e != nil && e.Kind == manifest.KindDir }
	capturedDir := func(e *manifest.Entry) bool { return e != nil && e.IsCapturedDir() }
	byRule := func(c manifest.Change) (bool, error) {
		for q := c.Path; q != ""; q = manifest.ParentPath(q) {
			if skipped[q] || decided[q] {
				return true, nil
			}
		}
		if isDir(c.Old) && isDir(c.New) && (c.Old.Uncaptured || c.New.Uncaptured) {
			return true, nil // content not kept on one side at least
		}
		if written[c.Path] {
			return false, nil
		}
		e := c.New
		if e == nil {
			e = c.Old
		}
		return before.Ignored(ctx, c.Path, isDir(e))
	}
	changes := map[string]*manifest.Entry{}
	err = manifest.Diff(ctx, loader, snap.Root, planned, func(c manifest.Change) error {
		ok, err := byRule(c)
		if err != nil {
			return err
		}
		if ok {
			decided[c.Path] = true
			return nil
		}
		if c.New != nil {
			// Its directory must be in the result.
			if dir := manifest.ParentPath(c.Path); dir != "" {
				d, set := changes[dir]
				if !set {
					if d, err = manifest.Find(ctx, loader, snap.Root, dir); err != nil {
						return err
					}
				}
				if !capturedDir(d) {
					decided[c.Path] = true
					return nil
				}
			}
		}
		changes[c.Path] = c.New
		return nil
	})
	if err != nil || len(changes) == 0 {
		return snap.Root, err
	}
	w := r.store.NewWriter()
	defer w.Cancel()
	h, err := manifest.Edit(ctx, loader, w, snap.Root, changes)
	if err != nil {
		return h, err
	}
	return h, w.Flush()
}

// checkpointSkips is what the capture of checkpoint cp skipped, from
// its record in batch m, else from the store.
func (r *Repo) checkpointSkips(ctx context.Context, m *model.MetaBatch, cp cas.Hash) (*model.SkipInfo, error) {
	for _, e := range m.Writes {
		if !bytes.Equal(e.Key, model.SnapKey(cp)) {
			continue
		}
		var rec model.SnapshotRecord
		if err := json.Unmarshal(e.Value, &rec); err != nil {
			return nil, fmt.Errorf("%w: restore journal metadata: %v", cas.ErrCorrupt, err)
		}
		return model.SkipInfoOfRecord(&rec), nil
	}
	return r.skipInfoOfRoot(ctx, cp)
}

// resettle is batch m with its planned result replaced by result,
// whose snapshot record is rec: in the result's record, m/latest, the
// session's last state, and the expected state of the undo that made
// it. A partial undo keeps its planned expected state, and that state
// its record: its redo puts back what differs between that state and
// its checkpoint, the undo's paths alone.
func resettle(m model.MetaBatch, cp, planned, result cas.Hash, rec cas.Entry) model.MetaBatch {
	out := m
	out.Result = result.String()
	out.Writes = nil
	old := planned.String()
	named := false      // a partial undo still names planned
	var kept *cas.Entry // planned's record
	for _, e := range m.Writes {
		switch {
		case bytes.Equal(e.Key, model.SnapKey(planned)) && planned != cp:
			kept = &e
			continue
		case string(e.Key) == model.KeyLatest:
			e.Value = []byte(result.String())
		case strings.HasPrefix(string(e.Key), model.PrefixSess):
			var s model.SessionRecord
			if json.Unmarshal(e.Value, &s) != nil {
				break
			}
			if s.Last == old {
				s.Last = result.String()
			}
			if n := len(s.Redo); n > 0 && s.Redo[n-1].Expected == old {
				if s.Redo[n-1].IsPartial() {
					named = true
				} else {
					s.Redo[n-1].Expected = result.String()
				}
			}
			e.Value = model.EncodeJSON(&s) // its Rev as planned
		}
		out.Writes = append(out.Writes, e)
	}
	if kept != nil && named {
		out.Writes = append(out.Writes, *kept)
	}
	if result != cp {
		out.Writes = append(out.Writes, rec)
	}
	return out
}

// editSkippedParents is manifest.Edit of cp with changes, where a path
// is made in a directory the checkpoint skipped (ignored in the state
// the restore starts from, and on disk): each such directory is added
// as it is on disk. The restore's result is then captured again: that
// directory's other entries are the capture's to judge.
func (r *Repo) editSkippedParents(ctx context.Context, loader manifest.Loader, w manifest.Saver, root *os.Root, cp cas.Hash, changes map[string]*manifest.Entry) (cas.Hash, error) {
	seen := map[string]bool{}
	var add []string
	for p, e := range changes {
		for q := manifest.ParentPath(p); e != nil && q != "" && !seen[q]; q = manifest.ParentPath(q) {
			seen[q] = true
			if _, ok := changes[q]; ok {
				break
			}
			d, err := manifest.Find(ctx, loader, cp, q)
			if err != nil {
				return cas.Hash{}, err
			}
			if d != nil {
				break
			}
			add = append(add, q)
		}
	}
	for _, q := range add {
		fi, err := root.Lstat(filepath.FromSlash(q))
		if err != nil || !fi.IsDir() {
			continue // Edit says which path lacks its directory
		}
		changes[q] = &manifest.Entry{Kind: manifest.KindDir, Mode: uint32(fi.Mode().Perm())}
	}
	return manifest.Edit(ctx, loader, w, cp, changes)
}
