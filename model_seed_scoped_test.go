package turnback_test

import "testing"

// TestModelSeedScopedUndoResult replays a model sequence the random
// seed found on main after the pathscope merge (e9ddd3b): a same-size
// rewrite of a/c keeping its mtime, after a restore wrote a/c, then an
// undo of an earlier turn whose paths are a/é and é/b. The undo names
// its result 9d2dc48132d0, the state before turn 1, while the disk has
// the rewritten a/c. It passes on 2955494 (before the merge).
func TestModelSeedScopedUndoResult(t *testing.T) {
	if err := runModelSequence(t, 15378200854736950, 15, true); err != nil {
		t.Fatal(err)
	}
}
