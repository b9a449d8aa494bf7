package daemon

// The documents of the API's answers, made from the root's values
// (internal/api defines them, and reads them back in its client).

import (
	"sort"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/api"
)

// snapResponse is the answer of a snap or end that returned r.
func snapResponse(r *turnback.SnapResult) *api.SnapResponse {
	out := &api.SnapResponse{Snapshot: idOrEmpty(r.Snapshot), Session: r.Session, Turn: r.Turn, Files: r.Files, Bytes: r.Bytes,
		Stats: r.Stats, Closed: api.NewTurnJSON(r.Closed), Dropped: r.Dropped, IgnoredChanged: r.IgnoredChanged, NoOpenTurn: r.NoOpenTurn, Kept: r.Kept, Watch: r.Watch, Notice: r.Notice, PullEnded: r.PullEnded}
	if r.RetentionErr != nil {
		out.RetentionError = r.RetentionErr.Error()
	}
	return out
}

// restoreResponse describes res; op is "undo", "redo" or "restore".
func restoreResponse(op string, res *turnback.RestoreResult) *api.RestoreResponse {
	out := &api.RestoreResponse{Turns: api.NewTurnsJSON(res.Moved), Restored: nonNil(res.Restored), Deleted: nonNil(res.Deleted),
		Created: nonNil(res.Created), SnapshotRestored: idOrEmpty(res.Result), Checkpoint: idOrEmpty(res.Checkpoint),
		Conflicts: nonNil(res.Conflicts), NotRestorable: nonNil(res.NotRestorable), Nothing: res.Nothing, Incomplete: res.Incomplete(),
		Paths: nonNil(res.Paths), Merged: nonNil(res.Merged), Markers: nonNil(res.Markers), DryRun: res.DryRun, AfterDropped: res.AfterDropped,
		Partial: res.Partial}
	switch op {
	case "undo":
		out.TurnsUndone = res.Turns
	case "redo":
		out.TurnsRedone = res.Turns
	}
	all := append(append(append([]string{}, res.Restored...), res.Deleted...), res.Created...)
	sort.Strings(all)
	out.FilesReverted = all
	return out
}

// entryJSON is e as the API sends it (nil for nil).
func entryJSON(e *turnback.Entry) *api.EntryJSON {
	if e == nil {
		return nil
	}
	return &api.EntryJSON{Name: e.Name, Kind: e.Kind.String(), Mode: e.Mode, Size: e.Size, Hash: idOrEmpty(e.Hash), Target: e.Target,
		Uncaptured: e.Uncaptured, Files: e.Files, Owned: e.Owned, UID: e.UID, GID: e.GID, LinkTo: e.LinkTo}
}

// changeJSON is c as the API sends it.
func changeJSON(c turnback.Change) api.ChangeJSON {
	return api.ChangeJSON{Path: c.Path, Change: c.What, Old: entryJSON(c.Old), New: entryJSON(c.New)}
}
