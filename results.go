package turnback

import "github.com/turnback/turnback/internal/model"

// The plain values of the model that results carry and the HTTP API
// sends, defined in internal/model (go doc it for their fields) and
// named here, so a program imports only this package.
type (
	// Turn is what an agent did between a snap and its end.
	Turn = model.Turn
	// Change is one path that differs between two states.
	Change = model.Change
	// FileDiff is one path of a diff with both contents.
	FileDiff = model.FileDiff
	// DiffResult is how two states differ (Repo.Compare).
	DiffResult = model.DiffResult
	// TurnChanges is what one turn changed (Repo.TurnChanges).
	TurnChanges = model.TurnChanges
	// SessionInfo describes one session of a store (Repo.Sessions).
	SessionInfo = model.SessionInfo
	// SessionTurns is one session with its turns (Repo.AllTurns).
	SessionTurns = model.SessionTurns
	// Checkpoint is a state an undo, redo or restore replaced.
	Checkpoint = model.Checkpoint
	// SnapResult is what a snap or an end recorded.
	SnapResult = model.SnapResult
	// StatusResult is how the folder differs from its last snapshot.
	StatusResult = model.StatusResult
	// SnapshotInfo describes a snapshot (Repo.Show).
	SnapshotInfo = model.SnapshotInfo
	// PathEntry is one path of a snapshot.
	PathEntry = model.PathEntry
	// PathNote is a path with the reason it was not restored.
	PathNote = model.PathNote
	// Preview is what a dry run would do.
	Preview = model.Preview
	// Notice is what undo and redo left for an agent to be told.
	Notice = model.Notice
	// PullEnded is a pull's pending apply a snap or end ended.
	PullEnded = model.PullEnded
	// Pulled is what pulls brought that the folder lacks (Repo.Pulled).
	Pulled = model.Pulled
	// NoticeEntry is one undo or redo of a Notice.
	NoticeEntry = model.NoticeEntry
	// WatchInfo tells how a watching Repo's capture read the folder.
	WatchInfo = model.WatchInfo
	// Info describes a store (Repo.Info).
	Info = model.Info
	// GCResult is what a gc removed or would remove.
	GCResult = model.GCResult
	// VerifyResult is what verify checked and found.
	VerifyResult = model.VerifyResult
	// VerifyProblem is one damaged path of a snapshot.
	VerifyProblem = model.VerifyProblem
	// RecoverResult is what recover found and did.
	RecoverResult = model.RecoverResult
	// RestoreResult reports undo, redo and restore.
	RestoreResult = model.RestoreResult
	// PartialState is an undo's or redo's state, which a restore put
	// back only at the paths it holds (RestoreResult.Partial).
	PartialState = model.PartialState
	// PartialCount marks a partial state (Checkpoints, Show).
	PartialCount = model.PartialCount

	// SnapOptions say what a snap records (Repo.SnapWith).
	SnapOptions = model.SnapOptions
	// StatusOptions say what Repo.StatusWith lists.
	StatusOptions = model.StatusOptions
	// UndoOptions say how Undo reverts the turns.
	UndoOptions = model.UndoOptions
	// MergeMode says whether and how Undo merges (UndoOptions.Merge).
	MergeMode = model.MergeMode
	// RedoOptions say how Redo re-applies turns.
	RedoOptions = model.RedoOptions
	// RestoreOptions say how Restore works.
	RestoreOptions = model.RestoreOptions
	// GCOptions say what GC forgets.
	GCOptions = model.GCOptions
)

// The merge modes (UndoOptions.Merge).
const (
	MergeNone    = model.MergeNone
	MergeClean   = model.MergeClean
	MergeMarkers = model.MergeMarkers
)

// OpenWindow is how recent an open turn's start must be for its
// session to count as working right now (LatestSession).
const OpenWindow = model.OpenWindow
