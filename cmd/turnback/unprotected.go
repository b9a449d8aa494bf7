package main

import (
	"fmt"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

// exitIncomplete: an undo, redo or restore did what it could but left
// paths not restorable (listed).
const exitIncomplete = 5

// incompleteFailure is the outcome of a restore that left paths not
// restorable: exit 5, its document in --json.
type incompleteFailure struct {
	res *turnback.RestoreResult
}

func (f incompleteFailure) Error() string {
	n := len(f.res.Unrestored())
	return fmt.Sprintf("turnback: incomplete: %d path%s could not be restored (marked not restored); everything else is done", n, termout.Plural(n))
}

func (f incompleteFailure) jsonDoc() map[string]any { return termout.RestoreDoc(f.res) }

// incomplete maps a restore that left paths not restorable to exit 5.
func incomplete(res *turnback.RestoreResult) error {
	if res == nil || res.Nothing || !res.Incomplete() {
		return nil
	}
	return codedError{code: exitIncomplete, err: incompleteFailure{res: res}}
}
