package turnback

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/restore"
)

// What an undo, redo or restore finds at a path at the moment it
// replaces or removes it, if it is not what the command planned from (an
// edit made while the command ran), is saved before it goes (see
// restore.Displaced) and added to the command's checkpoint: the
// checkpoint the command prints is then its planned checkpoint amended
// with those entries, and the session's redo record points at it.

// saveDisplaced stores content a restore displaced, durably.
func (r *Repo) saveDisplaced(ctx context.Context, rd io.Reader) (cas.Hash, int64, error) {
	w := r.store.NewWriter()
	defer w.Cancel()
	h, n, err := w.PutFile(ctx, rd, -1)
	if err != nil {
		return cas.Hash{}, 0, fmt.Errorf("turnback: save displaced content: %w", err)
	}
	if err := w.Flush(); err != nil {
		return cas.Hash{}, 0, fmt.Errorf("turnback: save displaced content: %w", err)
	}
	// Durable when it returns (restore.Options.Save): a deferred store
	// keeps flushed writes in memory until a Sync.
	if err := r.backend.Sync(); err != nil {
		return cas.Hash{}, 0, fmt.Errorf("turnback: save displaced content: %w", err)
	}
	return h, n, nil
}

// amendMeta returns the metadata batch data with its checkpoint replaced
// by the checkpoint amended with the displaced entries, and the amended
// checkpoint. A batch without a checkpoint (older journals) is returned
// as it is. It is deterministic in its result (recovery runs it again).
func (r *Repo) amendMeta(ctx context.Context, data []byte, displaced []restore.Displaced) ([]byte, cas.Hash, error) {
	var m model.MetaBatch
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, cas.Hash{}, fmt.Errorf("%w: restore journal metadata: %v", cas.ErrCorrupt, err)
	}
	if m.Checkpoint == "" || len(displaced) == 0 {
		return data, cas.Hash{}, nil
	}
	cp, err := cas.ParseHash(m.Checkpoint)
	if err != nil {
		return nil, cas.Hash{}, fmt.Errorf("%w: restore journal metadata: %v", cas.ErrCorrupt, err)
	}
	result, err := cas.ParseHash(m.Result)
	if err != nil {
		return nil, cas.Hash{}, fmt.Errorf("%w: restore journal metadata: %v", cas.ErrCorrupt, err)
	}
	loader := manifest.NewCachingLoader(r.loader())
	changes := map[string]*manifest.Entry{}
	for _, d := range displaced {
		e := *d.Entry
		changes[d.Path] = &e
		// Parent directories missing from the checkpoint come from the
		// result (the restore made them).
		q := ""
		for _, name := range strings.Split(d.Path, "/")[:strings.Count(d.Path, "/")] {
			q = manifest.JoinPath(q, name)
			if _, ok := changes[q]; ok {
				continue
			}
			have, err := manifest.Find(ctx, loader, cp, q)
			if err != nil {
				return nil, cas.Hash{}, err
			}
			if have != nil && have.Kind == manifest.KindDir {
				continue
			}
			dir, err := manifest.Find(ctx, loader, result, q)
			if err != nil {
				return nil, cas.Hash{}, err
			}
			if dir == nil || dir.Kind != manifest.KindDir {
				dir = &manifest.Entry{Kind: manifest.KindDir, Mode: 0o755}
			}
			changes[q] = dir
		}
	}
	w := r.store.NewWriter()
	defer w.Cancel()
	amended, err := manifest.Edit(ctx, loader, w, cp, changes)
	if err != nil {
		return nil, cas.Hash{}, fmt.Errorf("turnback: amend checkpoint: %w", err)
	}
	if err := w.Flush(); err != nil {
		return nil, cas.Hash{}, err
	}
	out := model.AmendBatch(m, cp, amended)
	b, err := json.Marshal(out)
	if err != nil {
		return nil, cas.Hash{}, fmt.Errorf("turnback: encode metadata: %w", err)
	}
	return b, amended, nil
}

// restoreOptions are the options of every restore this Repo applies or
// recovers. amended, if not nil, receives the amended checkpoint.
func (r *Repo) restoreOptions(amended *cas.Hash) restore.Options {
	return restore.Options{
		JournalDir: r.storeDir, WorkTree: r.workTree, Source: refSource{r},
		Commit: func(ctx context.Context, meta []byte) error { return r.commitMeta(ctx, meta, nil) }, Hook: r.hook, Progress: r.opts.RestoreProgress,
		Save: r.saveDisplaced,
		Amend: func(ctx context.Context, meta []byte, d []restore.Displaced) ([]byte, error) {
			b, h, err := r.amendMeta(ctx, meta, d)
			if err == nil && amended != nil && !h.IsZero() {
				*amended = h
			}
			return b, err
		},
	}
}

// changedConflict turns a restore.ChangedError (the last look before the
// commit point found paths changed) into the command's conflict: the
// command changed nothing.
func changedConflict(err error, out *RestoreResult) error {
	var ce *restore.ChangedError
	if !errors.As(err, &ce) {
		return nil
	}
	for _, p := range ce.Paths {
		out.Conflicts = append(out.Conflicts, PathNote{Path: p.Path, Reason: p.Reason + " (found by reading it just before the change)"})
	}
	return &ConflictError{Result: out}
}

// displacedNotes lists what a restore displaced as overwritten paths.
func displacedNotes(ds []restore.Displaced) []PathNote {
	var out []PathNote
	for _, d := range ds {
		out = append(out, PathNote{Path: d.Path, Reason: "changed while the command ran; what was there is in the checkpoint"})
	}
	return out
}
