package turnback_test

import "testing"

// TestModelSeedRedoGroup replays two model sequences random seeds found
// where a redo of several steps failed while planning: "path component
// is not a real directory". In the first an undo of two turns took back
// turn 15 (file c/c/b replaced by a directory holding c/c/b/b) and turn
// 16 (directory c/c replaced by a file); redo 2 planned turn 16 against
// the disk as it was, where c/c/b is still the file turn 15 replaces.
// The second fails the same way in a forced dry run of redo 3.
func TestModelSeedRedoGroup(t *testing.T) {
	for _, seed := range []int64{7847219858830682427, 3773154457438850499} {
		if err := runModelSequence(t, seed, 60, true); err != nil {
			t.Fatal(err)
		}
	}
}
