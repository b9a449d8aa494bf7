package model

// PartialState is a state that vouches for some paths only: an undo's
// or redo's checkpoint or result (SnapshotRecord.Partial). Restoring
// it puts back Paths alone.
type PartialState struct {
	// Of names the command that made it ("undo turn 3"), "" if unknown.
	Of    string   `json:"of"`
	Paths []string `json:"paths"`
}
