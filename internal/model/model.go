package model

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/walker"
)

// SnapResult reports a snap or an end.
type SnapResult struct {
	Snapshot cas.Hash
	Session  string
	// Turn is the session's turn number the snapshot belongs to (0 when
	// End found no open turn).
	Turn  int
	Files int64
	Bytes int64
	Stats walker.Stats
	// Closed is the turn this command closed, if any, and Dropped says
	// that it changed nothing and was therefore dropped.
	Closed  *Turn
	Dropped bool
	// IgnoredChanged: for a dropped turn, the skipped paths whose stat
	// data changed during it (ignoredchange.go): the turn changed only
	// paths turnback does not capture. Nil when none was seen.
	IgnoredChanged []walker.Ignored
	// NoOpenTurn: End was called with no open turn; nothing was recorded.
	NoOpenTurn bool
	// Kept: Snap found the session's open turn unchanged, and neither
	// that turn nor this snap has a message or metadata, so the turn
	// stays open as Turn (started when it was) and nothing is recorded:
	// closing it at the same state and opening another just like it
	// would differ only in number and start time.
	Kept bool
	// Watch says how the capture read the tree when the Repo watches it
	// (see Repo.Watch); nil otherwise.
	Watch *WatchInfo
	// RetentionErr reports a failure of the automatic retention that ran
	// after the snap (the snap itself was recorded).
	RetentionErr error
	// Notice is what SnapNotice took (nil: nothing, or not taken).
	Notice *Notice
	// PullEnded: this command ended a pull's pending apply (Repo.Pulled
	// held before it, not after). Nil otherwise.
	PullEnded *PullEnded
}

// GCResult reports a GC.
type GCResult struct {
	TurnsForgotten     int   `json:"turns_forgotten"`
	SnapshotsForgotten int   `json:"snapshots_forgotten"`
	BlobsRemoved       int64 `json:"blobs_removed"`
	ChunkListsRemoved  int64 `json:"chunk_lists_removed"`
	BlobsKept          int64 `json:"blobs_kept"`
	SizeBefore         int64 `json:"size_before"`
	SizeAfter          int64 `json:"size_after"`
	DryRun             bool  `json:"dry_run"`
	// Checkpoints lists the checkpoints dropped (or, in a dry run, that
	// would be), oldest first; they count in SnapshotsForgotten too.
	Checkpoints []Checkpoint `json:"checkpoints_forgotten"`
}

// Change is one path that differs between two states.
type Change struct {
	Path string              `json:"path"`
	Kind manifest.ChangeKind `json:"-"`
	What string              `json:"change"` // Kind as text
	Old  *manifest.Entry     `json:"-"`
	New  *manifest.Entry     `json:"-"`
}

// StatusResult lists the changes since the session's last snapshot.
type StatusResult struct {
	Base    cas.Hash // the session's last snapshot (zero if none)
	Current cas.Hash // the work tree now
	Changes []Change
	Stats   walker.Stats
	Watch   *WatchInfo // how the capture read the tree (watching Repos only)
	// Ignored: with StatusOptions.Ignored, every path the capture
	// skipped (outermost only, ".git" apart) and why; nil otherwise.
	Ignored []walker.Ignored
	// SkippedNow: the paths of Base the capture skipped (a marker or
	// an ignore rule came since), outermost only, and why. They are
	// not deletions, so not in Changes.
	SkippedNow []walker.Ignored
}

// SnapshotInfo describes one snapshot for Show.
type SnapshotInfo struct {
	ID      cas.Hash
	Files   int64
	Bytes   int64
	Entries []PathEntry
	Turns   []*Turn // turns of this session that start or end at it
	// Partial: the snapshot is a partial state (an undo's or redo's),
	// which restore puts back only at the paths it holds.
	Partial *PartialCount
}

// PathEntry is one path of a snapshot.
type PathEntry struct {
	Path  string
	Entry manifest.Entry
}

// FileDiff is the difference of one path between two states, with the
// contents needed to show it.
type FileDiff struct {
	Change
	OldData, NewData []byte // nil when not a captured regular file or too large
}

// DiffResult is how two states differ (Repo.Compare): From and To are
// the states, Files the paths that differ, with both contents.
type DiffResult struct {
	From, To cas.Hash
	Files    []FileDiff
	// SkippedNow: the paths of From that To's capture skipped (as
	// StatusResult's): not deleted, not in Files.
	SkippedNow []walker.Ignored
}

// SessionTurns is one session and its turns (see Repo.AllTurns).
type SessionTurns struct {
	SessionInfo
	// Turns and Redo are the session's turns, as Turns returns them.
	Turns, Redo []*Turn
}

// Info describes a store.
type Info struct {
	WorkTree  string `json:"work_tree"`
	Store     string `json:"store"`
	DiskBytes int64  `json:"disk_bytes"`
	Sessions  int    `json:"sessions"`
	Turns     int    `json:"turns"`
	Redoable  int    `json:"redoable_turns"`
	Snapshots int    `json:"snapshots"`
	// UniqueBytes is the size of the distinct file contents the snapshots
	// hold; LogicalBytes what they would take as plain copies, one per
	// snapshot.
	UniqueBytes   int64 `json:"unique_bytes"`
	LogicalBytes  int64 `json:"logical_bytes"`
	SizeLimit     int64 `json:"size_limit"`
	LargeDirFiles int   `json:"large_dir_files"`
	KeepTurns     int   `json:"keep_turns"`
	KeepAgeDays   int   `json:"keep_age_days"`

	// Distinct file contents of the snapshots by how they are protected:
	// copied into the store (UniqueBytes), held by a reference (a Git
	// LFS object, a git blob or a copy-on-write clone), or neither (over
	// the size limit with no reference: not restorable).
	BytesByCopy      int64 `json:"bytes_by_copy"`
	BytesByReference int64 `json:"bytes_by_reference"`
	BytesUnprotected int64 `json:"bytes_unprotected"`
}

// Notice is what undo and redo changed in a session since it was last
// taken (SnapNotice), oldest first.
type Notice struct {
	Version int           `json:"v"`
	Entries []NoticeEntry `json:"entries"`
}

// PullEnded is a pull's pending apply that a snap or end ended: pull
// --apply has nothing to do after it, and Restore still brings in the
// pulled turns (the whole folder becomes that state).
type PullEnded struct {
	Session string `json:"session"`
	// Turns are the pulled turns the folder lacks, oldest first.
	Turns []int `json:"turns"`
	// Restore is the argument of restore that brings them in: "@N",
	// "@N^" or a snapshot id (full length).
	Restore string `json:"restore"`
}

// Pulled describes the turns of a session a pull brought that the
// folder lacks (the root's Repo.Pulled).
type Pulled struct {
	Session string
	// Base is the state the folder was at when it was pulled into;
	// Last the session's last state, which the folder lacks.
	Base, Last cas.Hash
	// Turns are the turns pulled, oldest first.
	Turns []int
	// Newest is the session's newest turn on its undo stack (0: none);
	// AtNewest: Last is its after-state, so restore @Newest makes the
	// folder Last.
	Newest   int
	AtNewest bool
}

// NoticeEntry is one undo or redo.
type NoticeEntry struct {
	Op    string   `json:"op"`    // "undo" or "redo"
	Turns []int    `json:"turns"` // the turns undone or redone
	Paths []string `json:"paths"` // the paths it changed (a directory only when nothing below it is listed), sorted, at most NoticePaths
	More  int      `json:"more"`  // paths changed beyond Paths
}

// Preview is what an undo, redo or restore run with DryRun found it
// would do: the lists the same command run now would return in its
// RestoreResult, or, when it would stop at a conflict (without Force),
// the conflicts alone. Nothing was written to the work tree or recorded
// in the store; see the package doc (Dry runs) for what a dry run on a
// writable Repo may still store.
type Preview struct {
	Turns         int        `json:"turns"`          // turns it would undo or redo
	Paths         []string   `json:"paths"`          // a partial undo's or its redo's paths (UndoOptions.Paths)
	Restored      []string   `json:"restored"`       // would be rewritten
	Deleted       []string   `json:"deleted"`        // would be removed
	Created       []string   `json:"created"`        // would be brought back
	Merged        []string   `json:"merged"`         // rewritten with a merge (also in Restored)
	Markers       []string   `json:"markers"`        // merged with conflict markers (also in Merged)
	Conflicts     []PathNote `json:"conflicts"`      // edits in the way
	NotRestorable []PathNote `json:"not_restorable"` // would be left as they are
	// Stopped: the command would stop at the conflicts (no Force) and
	// change nothing (redo: after the turns counted in Turns).
	Stopped bool `json:"stopped"`
}

// MarshalJSON writes p with every list as [] rather than null, whatever
// path built it (a dry run with nothing to do, or one that stops at its
// conflicts, fills only some of them).
func (p Preview) MarshalJSON() ([]byte, error) {
	type plain Preview // without this method
	q := plain(p)
	q.Paths, q.Restored, q.Deleted, q.Created = nonNil(q.Paths), nonNil(q.Restored), nonNil(q.Deleted), nonNil(q.Created)
	q.Merged, q.Markers = nonNil(q.Merged), nonNil(q.Markers)
	q.Conflicts, q.NotRestorable = nonNil(q.Conflicts), nonNil(q.NotRestorable)
	return json.Marshal(q)
}

// Turn is what an agent did between a snap and its end.
type Turn struct {
	Version  int       `json:"v"`
	Session  string    `json:"session"`
	N        int       `json:"turn"`
	Message  string    `json:"message,omitempty"`
	Before   cas.Hash  `json:"-"`
	After    cas.Hash  `json:"-"`
	BeforeID string    `json:"before"`
	AfterID  string    `json:"after,omitempty"`
	Started  time.Time `json:"started"`
	Ended    time.Time `json:"ended,omitzero"`
	// ClosedBy says what closed the turn: "end", "snap", "undo" or
	// "redo"; empty while the turn is open.
	ClosedBy string `json:"closed_by,omitempty"`
	Added    int    `json:"added"`
	Modified int    `json:"modified"`
	Deleted  int    `json:"deleted"`
	// Meta is what the snap that began the turn was given
	// (SnapOptions.Meta): small string pairs turnback stores and
	// returns, never interprets (meta.go). Nil for none.
	Meta map[string]string `json:"meta,omitempty"`
	// PartlyUndone lists the paths partial undos (undo --path) of this
	// turn reverted while it stays on the undo stack: filled by Turns,
	// not stored.
	PartlyUndone []string `json:"-"`
	// Pulled: a pull brought the turn and the folder lacks it (pull
	// --apply or restore brings it in): filled by Turns, not stored.
	Pulled bool `json:"-"`
}

// Open reports whether the turn has no after-state yet.
func (t *Turn) Open() bool { return t.ClosedBy == "" }

// Checkpoint describes a recorded checkpoint (GCResult lists the ones gc
// drops).
type Checkpoint struct {
	ID      string    `json:"id"`
	Time    time.Time `json:"time"`
	Session string    `json:"session"`
	// Turn is the session's newest turn number when it was made: the
	// checkpoint sits between turn Turn and turn Turn+1.
	Turn int `json:"turn"`
	// Command, Paths and More: what made it and the paths it changed
	// (see CheckpointRecord; "" and none for older records).
	Command string   `json:"command"`
	Paths   []string `json:"paths"`
	More    int      `json:"more"`
	// Partial: the checkpoint is a partial state, which restore puts
	// back only at the paths it holds. Nil for a whole state, and in
	// gc's lists.
	Partial *PartialCount `json:"partial,omitempty"`
}

// RecoverResult reports Recover.
type RecoverResult struct {
	// Found: there was an interrupted operation.
	Found bool
	// RolledBack: it was rolled back (else finished).
	RolledBack bool
	// Paths the rollback put back (rewritten, removed, recreated), and
	// those it left as they are.
	Restored, Deleted, Created []string
	Kept                       []PathNote
}

// PathNote is a path with what happened to it.
type PathNote struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	// Kept: left as it is on purpose (a directory that still holds
	// something, a path ignored in either state), so not a reason to
	// call the command incomplete.
	Kept bool `json:"kept,omitempty"`
}

// OverlapReason is the conflict reason of a path that turn n of another
// session (named label) changed while the undone turns ran.
func OverlapReason(n int, label string) string {
	return fmt.Sprintf("%s%d of session %s, which ran at the same time", overlapPrefix, n, label)
}

const overlapPrefix = "also changed by turn "

// ByOtherSession reports whether n is a conflict with another session's
// turn (OverlapReason), not with an edit made after the turns.
func (n PathNote) ByOtherSession() bool { return strings.HasPrefix(n.Reason, overlapPrefix) }

// OpenWindow is how recent an open turn's start must be for its
// session to count as working right now (LatestSession). An older open
// turn was left by an agent that stopped without ending it.
const OpenWindow = time.Hour

// Working reports whether the session has a turn open right now, at
// now: one that started within OpenWindow and has not ended.
func (s SessionInfo) Working(now time.Time) bool {
	return s.Open && s.Turns+s.Redo > 0 && now.Sub(s.LastTurn) < OpenWindow
}

// SessionInfo describes one session of a store (see Repo.Sessions).
// Its JSON is the HTTP API's session document (GET /v1/sessions).
type SessionInfo struct {
	Name string `json:"name"`
	// Short is Name as people are shown it: Name itself, or for a name
	// over 24 bytes its shortest prefix of at least 8 that no other
	// session's name starts with, which FindSession accepts.
	Short string `json:"short"`
	// Agent names the agent whose hook recorded the session's first
	// turn ("claude", "gemini", ...; see Options.Agent), "" for none
	// (and for sessions recorded before agents were).
	Agent string `json:"agent,omitempty"`
	// Turns counts the turns undo can revert (the open one included);
	// Redo the undone turns redo can bring back.
	Turns int `json:"turns"`
	Redo  int `json:"redo"`
	// Open: the session's newest turn has not ended.
	Open bool `json:"open"`
	// LastTurn is when the newest turn (undone or not) started or
	// ended, whichever is later; zero when the session has no turn.
	LastTurn time.Time `json:"last_turn,omitzero"`
	// LastMessage is the newest turn's message.
	LastMessage string `json:"last_message,omitempty"`
	// RedoCleared is when turn RedoClearedBy, which changed the folder,
	// replaced the undone turns redo could bring back (zero: never).
	RedoCleared   time.Time `json:"redo_cleared,omitzero"`
	RedoClearedBy int       `json:"redo_cleared_by,omitempty"`
}

// TurnChanges is what one turn changed (ShowTurn, DiffTurn).
type TurnChanges struct {
	Turn *Turn
	// Undone says the turn is undone, waiting on the redo stack.
	Undone bool
	// Files are the paths the turn changed, from its before-state to its
	// after-state; OldData and NewData are set by DiffTurn only.
	Files []FileDiff
	// SkippedNow: the paths of the before-state that the after-state's
	// capture skipped (as StatusResult's): not deleted, not in Files.
	SkippedNow []walker.Ignored
}

// VerifyProblem is one damaged path found by Verify.
type VerifyProblem struct {
	Snapshot string `json:"snapshot"`
	Path     string `json:"path"`
	Err      string `json:"error"`
}

// VerifyResult reports a Verify run.
type VerifyResult struct {
	Snapshots int `json:"snapshots"`
	Trees     int `json:"trees"`
	Contents  int `json:"contents"`
	// References counts the contents above (of files over the size
	// limit) checked by reading them back from a recorded reference.
	References int             `json:"references"`
	Problems   []VerifyProblem `json:"problems"`
}

// WatchInfo says how a capture of a watching Repo read the tree.
type WatchInfo struct {
	// Incremental: only directories the watcher reported were read.
	Incremental bool `json:"incremental"`
	// FullWalk says why the whole tree was read instead.
	FullWalk string `json:"full_walk,omitempty"`
	// DirsRead and DirsReused count the directories listed and those
	// taken unread from the previous capture.
	DirsRead   int64 `json:"dirs_read"`
	DirsReused int64 `json:"dirs_reused"`
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
