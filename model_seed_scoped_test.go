package turnback_test

import "testing"

// TestModelSeedScopedUndoResult replays a model sequence a random seed
// found after the read-by-name merge (e9ddd3b): a restore wrote a/c and
// deleted a/é, the user rewrote a/c with the same size and mtime, then
// a forced undo of the turn whose paths are a/é and é/b recreated a/é.
// The undo's capture found no a/é, so it read a/ by name and took a/c
// from the base, unread; the model had decided from the folder after the
// undo, where a/é exists, and expected a/ listed whole.
func TestModelSeedScopedUndoResult(t *testing.T) {
	if err := runModelSequence(t, 15378200854736950, 15, true); err != nil {
		t.Fatal(err)
	}
}
