package model

import (
	"fmt"
	"time"

	"github.com/turnback/turnback/cas"
)

// SnapOptions are what SnapWith records with the new turn.
type SnapOptions struct {
	// Message is a note for the turn; its first line is kept.
	Message string
	// Meta is stored with the turn and returned with it (Turn.Meta):
	// at most MaxMetaPairs pairs of MaxMetaBytes in all, keys as
	// CheckMeta says. Never interpreted.
	Meta map[string]string
	// TakeNotice takes the session's notice in the same commit (see
	// SnapNotice).
	TakeNotice bool
}

// GCOptions set what GC keeps. Zero values mean the defaults.
type GCOptions struct {
	// Keep: turns to keep per session (newest first). Negative keeps all.
	Keep int
	// OlderThan: turns that started longer ago are forgotten. Negative
	// keeps them regardless of age.
	OlderThan time.Duration
	// DryRun counts without deleting anything.
	DryRun bool
}

// Incomplete reports whether the command left paths not restorable (the
// CLI exits 5: done, but incomplete). Paths left on purpose (Kept: a
// directory that still holds ignored or uncaptured entries, a path ignored
// in either state) do not count: keeping them is the rule (nothing is
// lost), not a failure to restore.
func (r *RestoreResult) Incomplete() bool { return len(r.Unrestored()) > 0 }

// Unrestored returns the paths of NotRestorable that the command could
// not bring to their target state (all but those Kept).
func (r *RestoreResult) Unrestored() []PathNote {
	var out []PathNote
	for _, n := range r.NotRestorable {
		if !n.Kept {
			out = append(out, n)
		}
	}
	return out
}

// StatusOptions say what Status lists besides the changes.
type StatusOptions struct {
	// Ignored: list what the capture skipped, and why (the capture then
	// reads every directory).
	Ignored bool
}

// UndoOptions say how Undo reverts the turns. The zero value is a whole
// undo that stops at any conflict.
type UndoOptions struct {
	// Force overwrites edits made outside the turns (what is overwritten
	// stays in the checkpoint).
	Force bool `json:"force,omitempty"`
	// Paths, if not empty, makes the undo partial: only the paths the
	// turns changed at or below one of these are reverted, and the
	// turns stay on the undo stack with the rest of their changes. Each
	// is slash-separated and relative to the work tree ("." is all of
	// it); one that is empty, outside it, or that names nothing the
	// turns changed, is an error wrapping ErrPath and nothing is done.
	Paths []string `json:"paths,omitempty"`
	// Dir, if set, is the directory relative Paths start from (as a
	// command line gives them; see TreePaths); "" is the work tree.
	Dir string `json:"-"`
	// DryRun changes nothing (see RestoreResult.DryRun).
	DryRun bool `json:"dry_run,omitempty"`
	// Merge keeps the user's edits in text files the turns changed and
	// the user edited since, by a three-way merge (package
	// restore/merge), instead of calling them conflicts.
	Merge MergeMode `json:"merge,omitempty"`
}

// MergeMode says whether and how Undo merges (UndoOptions.Merge). It is
// a command-line flag value (Set, String, Type).
type MergeMode string

// Set sets m from s: "clean" or "markers" ("" is MergeNone).
func (m *MergeMode) Set(s string) error {
	switch v := MergeMode(s); v {
	case MergeNone, MergeClean, MergeMarkers:
		*m = v
		return nil
	}
	return fmt.Errorf("turnback: merge mode must be %q or %q, not %q", MergeClean, MergeMarkers, s)
}

func (m *MergeMode) String() string { return string(*m) }

// Type names the flag value's type.
func (m *MergeMode) Type() string { return "mode" }

// RedoOptions say how Redo re-applies turns.
type RedoOptions struct {
	// Force overwrites edits made since the undo (kept in the
	// checkpoint).
	Force bool `json:"force,omitempty"`
	// DryRun changes nothing (see RestoreResult.DryRun).
	DryRun bool `json:"dry_run,omitempty"`
}

// RestoreOptions say how Restore works.
type RestoreOptions struct {
	// DryRun changes nothing (see RestoreResult.DryRun).
	DryRun bool `json:"dry_run,omitempty"`
}

// RestoreResult reports undo, redo and restore.
type RestoreResult struct {
	Turns         int        // turns undone or redone
	Restored      []string   // rewritten
	Deleted       []string   // removed
	Created       []string   // brought back
	Conflicts     []PathNote // edits in the way (nothing changed unless forced)
	NotRestorable []PathNote // left as they are
	Checkpoint    cas.Hash   // the state the command replaced
	Result        cas.Hash   // the state it left
	// Nothing: there was nothing to undo or redo.
	Nothing bool
	// Paths: the paths of a partial undo (UndoOptions.Paths), or of the
	// partial undos a redo brought back; empty for whole turns.
	Paths []string
	// Merged: paths of Restored whose content is a merge (undo with
	// UndoOptions.Merge); Markers: those of them written with conflict
	// markers (MergeMarkers).
	Merged, Markers []string
	// DryRun is set by a dry run (UndoOptions.DryRun and the like),
	// which changes nothing: what the command would do. Of the other
	// fields only Nothing, Turns (the preview's), Moved (the turns it
	// would move) and, when the preview stops at conflicts (returned
	// with a *ConflictError), Conflicts are set.
	DryRun *Preview
	// Moved lists the turns the undo or redo moved (a dry run: would
	// move), each once, oldest first, as their records are (number,
	// message, Meta): the turns Turns counts. A partial undo's are its
	// last N turns, whose changes at its paths it reverted (they stay
	// on the undo stack); its redo's the same. Empty, never nil, from Undo,
	// Redo and Restore (which moves no turns), and when nothing moved
	// (nothing to do, a conflict).
	Moved []*Turn `json:"moved"`
	// AfterDropped: the session's latest turn changed nothing turnback
	// captures and was dropped, so this undo undid an older one (Moved):
	// that turn's number. 0 otherwise.
	AfterDropped int
	// Partial: the state a restore went to is an undo's or redo's
	// (its checkpoint or result), which holds the folder's content only
	// at some paths: those alone were put back. Nil otherwise.
	Partial *PartialState

	parents map[string]bool // directories recreated only for a path below
	// noContent: paths not restorable because their content is neither
	// stored nor held by a reference (refsource.go).
	noContent map[string]bool
	// unseen: paths the turns left something at that neither the
	// current state nor the target holds; true for a directory.
	unseen map[string]bool
}

// The merge modes.
const (
	// MergeNone: an edited path is a conflict.
	MergeNone MergeMode = ""
	// MergeClean: an edited text file gets the turns' hunks reverted
	// and keeps the user's; where they overlap it is a conflict.
	MergeClean MergeMode = "clean"
	// MergeMarkers is MergeClean where overlaps are written between
	// conflict markers instead (RestoreResult.Markers).
	MergeMarkers MergeMode = "markers"
)

// The root package's bookkeeping of a restore, kept with its result
// and never sent or shown: not part of a result.

// Parents returns the directories r recreated only for a path below.
func Parents(r *RestoreResult) map[string]bool { return r.parents }

// AddParent records p as a directory recreated only for a path below.
func AddParent(r *RestoreResult, p string) { r.parents = addPath(r.parents, p) }

// NoContent returns the paths not restorable because their content is
// neither stored nor held by a reference.
func NoContent(r *RestoreResult) map[string]bool { return r.noContent }

// AddNoContent records p as not restorable for want of content.
func AddNoContent(r *RestoreResult, p string) { r.noContent = addPath(r.noContent, p) }

// Unseen returns the paths the turns left something at that neither the
// current state nor the target holds (true: a directory). One the
// current state ignores is still on disk: the command leaves it.
func Unseen(r *RestoreResult) map[string]bool { return r.unseen }

// AddUnseen records p as such a path; dir: it is a directory.
func AddUnseen(r *RestoreResult, p string, dir bool) {
	r.unseen = addPath(r.unseen, p)
	r.unseen[p] = dir
}

func addPath(m map[string]bool, p string) map[string]bool {
	if m == nil {
		m = map[string]bool{}
	}
	m[p] = true
	return m
}
