package api

// The documents of the HTTP API: internal/daemon makes them from the
// model's values and serves them, the client reads them back
// (NewTurnJSON, NewTurnsJSON and TurnsOfJSON serve both sides: a client
// sends turns too); internal/daemon/openapi.json describes them.
// Snapshot ids are 64 hex digits, times RFC 3339.

import (
	"fmt"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/walker"
)

// SnapRequest is the body of POST /v1/sessions/{session}/snap.
type SnapRequest struct {
	Message string            `json:"message,omitempty"`
	Meta    map[string]string `json:"meta,omitempty"`
	// Agent names the agent recording (see Options.Agent).
	Agent string `json:"agent,omitempty"`
	// TakeNotice: take the session's notice (see SnapNotice).
	TakeNotice bool `json:"take_notice,omitempty"`
}

// UndoRequest is the body of POST /v1/sessions/{session}/undo (see
// UndoOptions).
type UndoRequest struct {
	// Count: turns to undo (0 means 1).
	Count int  `json:"count,omitempty"`
	Force bool `json:"force,omitempty"`
	// Paths makes the undo partial: only what the turns changed at or
	// below these (slash-separated, relative to the folder) is reverted.
	Paths []string `json:"paths,omitempty"`
	// DryRun changes nothing: the answer's dry_run says what would be.
	DryRun bool `json:"dry_run,omitempty"`
	// Merge: "clean" or "markers" merges text files edited since.
	Merge model.MergeMode `json:"merge,omitempty"`
}

// RedoRequest is the body of POST /v1/sessions/{session}/redo (see
// RedoOptions).
type RedoRequest struct {
	Count  int  `json:"count,omitempty"`
	Force  bool `json:"force,omitempty"`
	DryRun bool `json:"dry_run,omitempty"`
}

// RestoreRequest is the body of POST /v1/restore.
type RestoreRequest struct {
	ID string `json:"id"`
	// Session records the checkpoint (default "default").
	Session string `json:"session,omitempty"`
	DryRun  bool   `json:"dry_run,omitempty"`
}

// GCRequest is the body of POST /v1/gc (see GCOptions).
type GCRequest struct {
	Keep             int   `json:"keep,omitempty"`
	OlderThanSeconds int64 `json:"older_than_seconds,omitempty"`
	DryRun           bool  `json:"dry_run,omitempty"`
}

// ErrorResponse is every error: the message, the exit code the CLI
// exits with for it, and what it is (Kind: "conflict", "busy",
// "unknown_id", "ambiguous_id", "ambiguous_session", "unfinished",
// "unverified", "no_space", "read_only", "invalid_meta", "bad_path",
// "bad_ref", "no_turn", "open_turn", "no_session", "diverged", "not_applied",
// "bad_session", "bad_request", "too_large", "unauthorized",
// "not_found", "wrong_daemon", "stopping", "error"). A conflict
// carries the result. Its field names are those of the CLI's --json
// errors.
type ErrorResponse struct {
	Error    string           `json:"error"`
	ExitCode int              `json:"exit_code"`
	Kind     string           `json:"kind"`
	Result   *RestoreResponse `json:"result,omitempty"`
	// Stopping: the daemon stopped at once, for this reason, and
	// cancelled the operation.
	Stopping string `json:"stopping,omitempty"`
	// Sessions: with kind "ambiguous_session" for a request that asked
	// the daemon to pick its session, the live sessions it could not
	// choose between.
	Sessions []model.SessionInfo `json:"sessions,omitempty"`
	// Verify: with kind "verify", what verify checked and the damage it
	// found, by snapshot and path.
	Verify *model.VerifyResult `json:"verify,omitempty"`
}

// TurnJSON is a turn.
type TurnJSON struct {
	Session  string            `json:"session"`
	Turn     int               `json:"turn"`
	Message  string            `json:"message"`
	Meta     map[string]string `json:"meta,omitempty"`
	Before   string            `json:"before"`
	After    string            `json:"after,omitempty"`
	Open     bool              `json:"open"`
	Started  time.Time         `json:"started"`
	Ended    time.Time         `json:"ended,omitzero"`
	ClosedBy string            `json:"closed_by,omitempty"`
	Added    int               `json:"added"`
	Modified int               `json:"modified"`
	Deleted  int               `json:"deleted"`
	// PartlyUndone: the paths partial undos reverted of a turn still on
	// the undo stack (Turn.PartlyUndone).
	PartlyUndone []string `json:"partly_undone,omitempty"`
	// Pulled: a pull brought the turn and the folder lacks it
	// (Turn.Pulled).
	Pulled bool `json:"pulled,omitempty"`
}

// NewTurnJSON is t as the API sends it (nil for nil).
func NewTurnJSON(t *model.Turn) *TurnJSON {
	if t == nil {
		return nil
	}
	j := &TurnJSON{Session: t.Session, Turn: t.N, Message: t.Message, Meta: t.Meta, Before: t.Before.String(),
		Open: t.Open(), Started: t.Started, Ended: t.Ended, ClosedBy: t.ClosedBy,
		Added: t.Added, Modified: t.Modified, Deleted: t.Deleted, PartlyUndone: t.PartlyUndone, Pulled: t.Pulled}
	if !t.Open() {
		j.After = t.After.String()
	}
	return j
}

// NewTurnsJSON is ts as the API sends them (never nil).
func NewTurnsJSON(ts []*model.Turn) []*TurnJSON {
	out := []*TurnJSON{}
	for _, t := range ts {
		out = append(out, NewTurnJSON(t))
	}
	return out
}

func (j *TurnJSON) turn() (*model.Turn, error) {
	if j == nil {
		return nil, nil
	}
	t := &model.Turn{Version: turnVersion, Session: j.Session, N: j.Turn, Message: j.Message, Meta: j.Meta, BeforeID: j.Before,
		AfterID: j.After, Started: j.Started, Ended: j.Ended, ClosedBy: j.ClosedBy,
		Added: j.Added, Modified: j.Modified, Deleted: j.Deleted, PartlyUndone: j.PartlyUndone, Pulled: j.Pulled}
	var err error
	if t.Before, err = parseDocID(j.Before); err != nil {
		return nil, err
	}
	if t.After, err = parseDocID(j.After); err != nil {
		return nil, err
	}
	return t, nil
}

// TurnsOfJSON reads turns the API sent back into Turns.
func TurnsOfJSON(js []*TurnJSON) ([]*model.Turn, error) {
	var out []*model.Turn
	for _, j := range js {
		t, err := j.turn()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// parseDocID reads an id of a document ("" is the zero hash).
func parseDocID(s string) (cas.Hash, error) {
	if s == "" {
		return cas.Hash{}, nil
	}
	h, err := cas.ParseHash(s)
	if err != nil {
		return h, fmt.Errorf("turnback: api: %w", err)
	}
	return h, nil
}

// SnapResponse answers snap and end.
type SnapResponse struct {
	Snapshot       string           `json:"snapshot,omitempty"`
	Session        string           `json:"session"`
	Turn           int              `json:"turn"`
	Files          int64            `json:"files"`
	Bytes          int64            `json:"bytes"`
	Stats          walker.Stats     `json:"stats"`
	Closed         *TurnJSON        `json:"closed,omitempty"`
	Dropped        bool             `json:"dropped,omitempty"`
	IgnoredChanged []walker.Ignored `json:"ignored_changed,omitempty"`
	NoOpenTurn     bool             `json:"no_open_turn,omitempty"`
	Kept           bool             `json:"kept,omitempty"`
	Watch          *model.WatchInfo `json:"watch,omitempty"`
	RetentionError string           `json:"retention_error,omitempty"`
	Notice         *model.Notice    `json:"notice,omitempty"`
	PullEnded      *model.PullEnded `json:"pull_ended,omitempty"`
}

func (s *SnapResponse) result() (*model.SnapResult, error) {
	out := &model.SnapResult{Session: s.Session, Turn: s.Turn, Files: s.Files, Bytes: s.Bytes, Stats: s.Stats,
		Dropped: s.Dropped, IgnoredChanged: s.IgnoredChanged, NoOpenTurn: s.NoOpenTurn, Kept: s.Kept, Watch: s.Watch, Notice: s.Notice, PullEnded: s.PullEnded}
	var err error
	if out.Snapshot, err = parseDocID(s.Snapshot); err != nil {
		return nil, err
	}
	if out.Closed, err = s.Closed.turn(); err != nil {
		return nil, err
	}
	if s.RetentionError != "" {
		out.RetentionErr = &remoteError{msg: s.RetentionError}
	}
	return out, nil
}

// RestoreResponse answers undo, redo and restore (and a conflict's
// error carries it). TurnsUndone is set by undo, TurnsRedone by redo;
// Turns lists those turns with their meta (oldest first; a dry run's
// those it would move: RestoreResult.Moved);
// FilesReverted is every path the command changed (Restored, Deleted
// and Created, sorted); SnapshotRestored the state it left.
type RestoreResponse struct {
	TurnsUndone      int              `json:"turns_undone"`
	TurnsRedone      int              `json:"turns_redone"`
	Turns            []*TurnJSON      `json:"turns"`
	FilesReverted    []string         `json:"files_reverted"`
	Restored         []string         `json:"restored"`
	Deleted          []string         `json:"deleted"`
	Created          []string         `json:"created"`
	SnapshotRestored string           `json:"snapshot_restored"`
	Checkpoint       string           `json:"checkpoint"`
	Conflicts        []model.PathNote `json:"conflicts"`
	NotRestorable    []model.PathNote `json:"not_restorable"`
	Nothing          bool             `json:"nothing,omitempty"`
	// AfterDropped: the session's latest turn was dropped (it changed
	// nothing captured), so the undo undid an older one: its number.
	AfterDropped int  `json:"after_dropped,omitempty"`
	Incomplete   bool `json:"incomplete,omitempty"`
	// Paths: a partial undo's paths (or those a redo brought back);
	// Merged and Markers: paths merged, with conflict markers.
	Paths   []string `json:"paths"`
	Merged  []string `json:"merged"`
	Markers []string `json:"markers"`
	// DryRun: what a dry run found it would do (nothing was changed).
	DryRun *model.Preview `json:"dry_run,omitempty"`
	// Partial: restore went to an undo's or redo's state, and put back
	// only the paths it holds.
	Partial *model.PartialState `json:"partial,omitempty"`
}

func (r *RestoreResponse) result() (*model.RestoreResult, error) {
	out := &model.RestoreResult{Turns: r.TurnsUndone + r.TurnsRedone, Restored: r.Restored, Deleted: r.Deleted, Created: r.Created,
		Conflicts: r.Conflicts, NotRestorable: r.NotRestorable, Nothing: r.Nothing, Paths: r.Paths, Merged: r.Merged,
		Markers: r.Markers, DryRun: r.DryRun, AfterDropped: r.AfterDropped, Partial: r.Partial}
	out.Moved = make([]*model.Turn, 0, len(r.Turns))
	for _, j := range r.Turns {
		t, err := j.turn()
		if err != nil {
			return nil, err
		}
		if t != nil {
			out.Moved = append(out.Moved, t)
		}
	}
	var err error
	if out.Checkpoint, err = parseDocID(r.Checkpoint); err != nil {
		return nil, err
	}
	if out.Result, err = parseDocID(r.SnapshotRestored); err != nil {
		return nil, err
	}
	for _, l := range []*[]string{&out.Restored, &out.Deleted, &out.Created, &out.Paths, &out.Merged, &out.Markers} {
		if len(*l) == 0 {
			*l = nil
		}
	}
	if len(out.Conflicts) == 0 {
		out.Conflicts = nil
	}
	if len(out.NotRestorable) == 0 {
		out.NotRestorable = nil
	}
	return out, nil
}

// EntryJSON is one entry of a snapshot.
type EntryJSON struct {
	Name       string `json:"name"`
	Kind       string `json:"kind"` // "file", "dir", "symlink" or "fifo"
	Mode       uint32 `json:"mode"`
	Size       int64  `json:"size"`
	Hash       string `json:"hash,omitempty"`
	Target     string `json:"target,omitempty"`
	Uncaptured bool   `json:"uncaptured,omitempty"`
	Files      int64  `json:"files,omitempty"`
	Owned      bool   `json:"owned,omitempty"`
	UID        uint32 `json:"uid,omitempty"`
	GID        uint32 `json:"gid,omitempty"`
	LinkTo     string `json:"link_to,omitempty"`
}

var entryKinds = map[string]manifest.Kind{"file": manifest.KindFile, "dir": manifest.KindDir,
	"symlink": manifest.KindSymlink, "fifo": manifest.KindFIFO}

func (j *EntryJSON) entry() (*manifest.Entry, error) {
	if j == nil {
		return nil, nil
	}
	k, ok := entryKinds[j.Kind]
	if !ok {
		return nil, fmt.Errorf("turnback: api: unknown entry kind %q", j.Kind)
	}
	h, err := parseDocID(j.Hash)
	if err != nil {
		return nil, err
	}
	return &manifest.Entry{Name: j.Name, Kind: k, Mode: j.Mode, Size: j.Size, Hash: h, Target: j.Target,
		Uncaptured: j.Uncaptured, Files: j.Files, Owned: j.Owned, UID: j.UID, GID: j.GID, LinkTo: j.LinkTo}, nil
}

// ChangeJSON is one path that differs between two states.
type ChangeJSON struct {
	Path   string     `json:"path"`
	Change string     `json:"change"` // "added", "deleted", "modified", "mode", "type"
	Old    *EntryJSON `json:"old,omitempty"`
	New    *EntryJSON `json:"new,omitempty"`
}

func (j ChangeJSON) change() (model.Change, error) {
	c := model.Change{Path: j.Path, What: j.Change}
	for _, k := range []manifest.ChangeKind{manifest.Added, manifest.Deleted, manifest.Modified, manifest.ModeChanged, manifest.TypeChanged} {
		if k.String() == j.Change {
			c.Kind = k
		}
	}
	var err error
	if c.Old, err = j.Old.entry(); err != nil {
		return c, err
	}
	c.New, err = j.New.entry()
	return c, err
}

// StatusResponse answers GET /v1/status.
type StatusResponse struct {
	Base    string           `json:"base"`
	Current string           `json:"current"`
	Changes []ChangeJSON     `json:"changes"`
	Stats   walker.Stats     `json:"stats"`
	Watch   *model.WatchInfo `json:"watch,omitempty"`
	// Ignored: with ?ignored=true, what the capture skipped and why.
	Ignored []walker.Ignored `json:"ignored,omitempty"`
	// SkippedNow: the paths of base the capture skipped, not deleted.
	SkippedNow []walker.Ignored `json:"skipped_now,omitempty"`
}

// FileDiffJSON is one path of a diff, with both contents (base64; absent
// when not a captured regular file or too large).
type FileDiffJSON struct {
	ChangeJSON
	OldData []byte `json:"old_data,omitempty"`
	NewData []byte `json:"new_data,omitempty"`
}

// DiffResponse answers GET /v1/diff.
type DiffResponse struct {
	From  string         `json:"from"`
	To    string         `json:"to"`
	Files []FileDiffJSON `json:"files"`
	// SkippedNow: the paths of from that to's capture skipped, not
	// deleted.
	SkippedNow []walker.Ignored `json:"skipped_now,omitempty"`
}

// TurnsResponse answers GET /v1/sessions/{session}/turns: the turns undo
// can revert and the undone ones redo can bring back, newest first.
type TurnsResponse struct {
	Session string      `json:"session"`
	Turns   []*TurnJSON `json:"turns"`
	Redo    []*TurnJSON `json:"redo"`
}

// PathEntryJSON is one path of a snapshot.
type PathEntryJSON struct {
	Path  string    `json:"path"`
	Entry EntryJSON `json:"entry"`
}

// ShowResponse answers GET /v1/snapshots/{id}.
type ShowResponse struct {
	ID      string          `json:"id"`
	Files   int64           `json:"files"`
	Bytes   int64           `json:"bytes"`
	Entries []PathEntryJSON `json:"entries"`
	Turns   []*TurnJSON     `json:"turns"`
	// Partial: a partial state (SnapshotInfo.Partial).
	Partial *model.PartialCount `json:"partial,omitempty"`
}

// SessionsResponse answers GET /v1/sessions.
type SessionsResponse struct {
	Sessions []model.SessionInfo `json:"sessions"`
}

// HealthResponse answers GET /v1/health.
type HealthResponse struct {
	OK       bool   `json:"ok"`
	API      string `json:"api"` // "v1"
	WorkTree string `json:"work_tree"`
	Store    string `json:"store"`
	PID      int    `json:"pid"`
}

// SessionTurnsJSON is one session with its turns (GET /v1/turns).
type SessionTurnsJSON struct {
	Session model.SessionInfo `json:"session"`
	Turns   []*TurnJSON       `json:"turns"`
	Redo    []*TurnJSON       `json:"redo"`
}

// AllTurnsResponse answers GET /v1/turns: every session, as
// GET /v1/sessions orders them, with its turns newest first.
type AllTurnsResponse struct {
	Sessions []SessionTurnsJSON `json:"sessions"`
}

// TurnChangesResponse answers GET /v1/sessions/{session}/turns/{n}:
// the paths the turn changed, with both contents when asked for
// (?content=true, base64 as in a diff).
type TurnChangesResponse struct {
	Turn   *TurnJSON      `json:"turn"`
	Undone bool           `json:"undone"`
	Files  []FileDiffJSON `json:"files"`
	// SkippedNow: the paths the after-state skipped, not deleted.
	SkippedNow []walker.Ignored `json:"skipped_now,omitempty"`
}

// UnprotectedRequest is the body of POST /v1/unprotected: turns as the
// API returns them (only "turn", "before" and "after" are read).
type UnprotectedRequest struct {
	Turns []*TurnJSON `json:"turns"`
}

// UnprotectedResponse answers POST /v1/unprotected: per turn number,
// the paths the turn changed whose earlier content no copy or
// reference holds (an undo cannot bring them back).
type UnprotectedResponse struct {
	Unprotected map[int][]string `json:"unprotected"`
}

// RecoverRequest is the body of POST /v1/recover.
type RecoverRequest struct {
	Rollback bool `json:"rollback,omitempty"`
}

// RecoverResponse answers POST /v1/recover (see RecoverResult).
type RecoverResponse struct {
	Found      bool             `json:"found"`
	RolledBack bool             `json:"rolled_back"`
	Restored   []string         `json:"restored"`
	Deleted    []string         `json:"deleted"`
	Created    []string         `json:"created"`
	Kept       []model.PathNote `json:"kept"`
}

// CheckpointsResponse answers GET /v1/checkpoints.
type CheckpointsResponse struct {
	Checkpoints []model.Checkpoint `json:"checkpoints"`
}
