package turnback_test

import "testing"

// TestModelSeedRedoKeptDir replays a model sequence where the model
// wanted a conflict the product rightly did not report. Turn 4 removed
// directory a-, turn 5 made a- and a-/a; their undo kept a-/a (it held
// a file of the user's); a restore then removed a-. Redo 2: the step of
// turn 4 leaves a- absent, so what turn 5 is checked against has
// nothing below a-. The model kept a-/a there, alone under an absent
// a-, and took its re-creation for an overwrite.
func TestModelSeedRedoKeptDir(t *testing.T) {
	if err := runModelSequence(t, 4629639869306366683, 60, true); err != nil {
		t.Fatal(err)
	}
}
