package turnback

// Undo's merge (UndoOptions.Merge): a text file the turns changed and
// the user edited since gets the turns' hunks reverted and keeps the
// user's (package restore/merge), instead of being a conflict.
//
// The three versions are read from the store, never from disk: ours is
// the content the undo's capture stored, and the action's Old is that
// capture's entry. So the restore's last look before its commit point
// (the full hash of every path it replaces) finds any edit made since
// the capture, during the merge included, and the undo changes nothing
// (a conflict); an edit landing after that look is displaced into the
// checkpoint as for any restore (displaced.go). The merged content is
// stored before the restore, and the checkpoint holds the file as it
// was, so a redo brings it back exactly.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/pathstate"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/restore"
	"github.com/turnback/turnback/restore/merge"
)

// mergedFile is one file's merged content.
type mergedFile struct {
	text    []byte
	hash    cas.Hash
	markers bool // written with conflict markers
}

// mergeSet holds the merged files by path.
type mergeSet map[string]*mergedFile

// lists returns the merged paths that are in restored, and those of them
// with markers, sorted.
func (m mergeSet) lists(restored []string) (merged, markers []string) {
	for _, p := range restored {
		if f, ok := m[p]; ok {
			merged = append(merged, p)
			if f.markers {
				markers = append(markers, p)
			}
		}
	}
	sort.Strings(merged)
	sort.Strings(markers)
	return merged, markers
}

// mergeConflicts merges, with mode, every conflicting path of res whose
// three versions allow it: its action then writes the merged content
// (or goes, when the merge is what is there already) and its conflict
// is dropped. The conflicts left say why they were not merged. label
// names the turns' before-state in conflict markers.
func (r *Repo) mergeConflicts(ctx context.Context, actions []restore.Action, left map[string]*manifest.Entry, res *RestoreResult, mode MergeMode, label string) ([]restore.Action, mergeSet, error) {
	if mode == MergeNone || len(res.Conflicts) == 0 {
		return actions, nil, nil
	}
	idx := map[string]int{}
	for i, a := range actions {
		idx[a.Path] = i
	}
	set := mergeSet{}
	drop := map[string]bool{}
	var keep []PathNote
	for _, c := range res.Conflicts {
		i, ok := idx[c.Path]
		if !ok {
			keep = append(keep, c)
			continue
		}
		a := &actions[i]
		e, f, why, err := r.mergeOne(ctx, a.Old, left[c.Path], a.New, mode == MergeMarkers, label)
		if err != nil {
			return nil, nil, fmt.Errorf("turnback: merge %s: %w", c.Path, err)
		}
		if why != "" {
			keep = append(keep, PathNote{Path: c.Path, Reason: c.Reason + "; not merged: " + why})
			continue
		}
		if r.hook != nil {
			if err := r.hook("merge " + c.Path); err != nil {
				return nil, nil, err
			}
		}
		if pathstate.Same(a.Old, e) {
			drop[c.Path] = true // the merge is what is there
			continue
		}
		a.New = e
		set[c.Path] = f
	}
	res.Conflicts = keep
	if len(drop) > 0 {
		kept := actions[:0:0]
		for _, a := range actions {
			if !drop[a.Path] {
				kept = append(kept, a)
			}
		}
		actions = kept
	}
	return actions, set, nil
}

// mergeOne merges the turns' change base→theirs out of ours. It returns
// the entry to write and its content, or why the file is not merged.
func (r *Repo) mergeOne(ctx context.Context, ours, base, theirs *manifest.Entry, markers bool, label string) (*manifest.Entry, *mergedFile, string, error) {
	for _, e := range []*manifest.Entry{ours, base, theirs} {
		switch {
		case e == nil || e.Kind != manifest.KindFile:
			return nil, nil, "not a file before the turns, after them and now", nil
		case e.Uncaptured || e.Size > merge.MaxSize:
			return nil, nil, fmt.Sprintf("larger than %d bytes", merge.MaxSize), nil
		}
	}
	if !pathstate.OwnersAgree(ours, base) {
		return nil, nil, "its owner changed", nil
	}
	mode := theirs.Mode
	switch {
	case ours.Mode == base.Mode:
	case theirs.Mode == base.Mode:
		mode = ours.Mode
	default:
		return nil, nil, "its permissions changed on both sides", nil
	}
	// The file keeps ours' owner and gets theirs' lines: no setuid,
	// setgid or sticky bit unless theirs was recorded with that owner
	// (a pulled state's owner is another machine's, and not recorded).
	if !(theirs.Owned && ours.Owned && theirs.SameOwner(ours)) {
		mode &^= manifest.ModeSpecial
	}
	var text [3][]byte
	for i, e := range []*manifest.Entry{base, ours, theirs} {
		rd, err := r.store.Open(ctx, e.Hash)
		if err != nil {
			return nil, nil, "", err
		}
		if text[i], err = io.ReadAll(rd); err != nil {
			return nil, nil, "", err
		}
	}
	m, err := merge.Three(text[0], text[1], text[2], merge.Options{Markers: markers, OursLabel: "now", TheirsLabel: label})
	switch {
	case errors.Is(err, merge.ErrBinary):
		return nil, nil, "binary", nil
	case errors.Is(err, merge.ErrTooLarge):
		return nil, nil, fmt.Sprintf("larger than %d bytes", merge.MaxSize), nil
	case err != nil:
		return nil, nil, "", err
	case m.Text == nil:
		return nil, nil, "the edits overlap the turns' changes", nil
	}
	h, size, err := cas.HashReader(ctx, bytes.NewReader(m.Text))
	if err != nil {
		return nil, nil, "", err
	}
	e := *ours
	e.Mode, e.Hash, e.Size, e.LinkTo = mode, h, size, ""
	return &e, &mergedFile{text: m.Text, hash: h, markers: m.Conflicts > 0}, "", nil
}

// storeMerged stores the merged contents, durably, before the restore
// that writes them.
func (r *Repo) storeMerged(ctx context.Context, set mergeSet) error {
	if len(set) == 0 {
		return nil
	}
	paths := make([]string, 0, len(set))
	for p := range set {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	w := r.store.NewWriter()
	defer w.Cancel()
	for _, p := range paths {
		f := set[p]
		h, _, err := w.PutFile(ctx, bytes.NewReader(f.text), int64(len(f.text)))
		if err != nil {
			return fmt.Errorf("turnback: store merged %s: %w", p, err)
		}
		if h != f.hash {
			return fmt.Errorf("turnback: store merged %s: stored as %s, hashed as %s", p, h, f.hash)
		}
	}
	return w.Flush()
}
