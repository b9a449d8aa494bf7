package turnback_test

import "testing"

// TestModelSeedRedoGroup replays model sequences where a redo of
// several steps failed while planning: "path component is not a real
// directory". In the first an undo of two turns took back turn 15 (file
// c/c/b replaced by a directory holding c/c/b/b) and turn 16 (directory
// c/c replaced by a file); redo 2 planned turn 16 against the disk as
// it was, where c/c/b is still the file turn 15 replaces. The others
// fail the same way in forced dry runs of redo 3 and redo 4 (the third
// is sequence 43 of the fixed seed at 80 steps).
func TestModelSeedRedoGroup(t *testing.T) {
	for _, c := range []struct {
		seed  int64
		steps int
	}{
		{7847219858830682427, 60},
		{3773154457438850499, 60},
		{8420416984819190471, 80},
	} {
		if err := runModelSequence(t, c.seed, c.steps, true); err != nil {
			t.Fatal(err)
		}
	}
}
