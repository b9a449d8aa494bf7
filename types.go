package turnback

import (
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/restore"
	"github.com/turnback/turnback/walker"
)

// Types of the lower packages that appear in this package's results and
// options, under names of its own: a program using turnback (the CLI
// included) needs to import only this package.
type (
	// Stats counts what a capture saw and did (SnapResult.Stats,
	// StatusResult.Stats).
	Stats = walker.Stats
	// Ignored is a path a capture skipped, and why
	// (StatusResult.Ignored).
	Ignored = walker.Ignored
	// Progress is the counters a running capture updates
	// (Options.Progress).
	Progress = walker.Progress
	// RestoreProgress is the counters a running undo, redo or restore
	// updates (Options.RestoreProgress).
	RestoreProgress = restore.Progress
	// Entry is one name of a snapshot's directory.
	Entry = manifest.Entry
	// EntryKind is the type of an Entry.
	EntryKind = manifest.Kind
	// ChangeKind says how a path differs between two snapshots.
	ChangeKind = manifest.ChangeKind
)

// The kinds of Entry.
const (
	KindFile    = manifest.KindFile
	KindDir     = manifest.KindDir
	KindSymlink = manifest.KindSymlink
)

// The kinds of Change.
const (
	Added       = manifest.Added
	Deleted     = manifest.Deleted
	Modified    = manifest.Modified
	ModeChanged = manifest.ModeChanged
	TypeChanged = manifest.TypeChanged
)
