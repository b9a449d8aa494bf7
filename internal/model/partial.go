package model

import (
	"encoding/json"

	"github.com/turnback/turnback/cas"
)

// PartialState is a state that vouches for some paths only: an undo's
// or redo's checkpoint or result (SnapshotRecord.Partial). Restoring
// it puts back Paths alone.
type PartialState struct {
	// Of names the command that made it ("undo turn 3"), "" if unknown.
	Of    string   `json:"of"`
	Paths []string `json:"paths"`
}

// PartialCount marks a partial state where checkpoints and snapshots
// are listed or shown (Checkpoint.Partial, SnapshotInfo.Partial): how
// many paths it holds.
type PartialCount struct {
	Paths int `json:"paths"`
}

// PartialEntry is the snapshot record e made partial, vouching for
// paths.
func PartialEntry(e cas.Entry, paths []string) cas.Entry {
	var rec SnapshotRecord
	if err := json.Unmarshal(e.Value, &rec); err != nil {
		return e
	}
	rec.Partial, rec.Paths = true, paths
	if rec.Paths == nil {
		rec.Paths = []string{}
	}
	return cas.Entry{Key: e.Key, Value: EncodeJSON(rec)}
}
