package turnback_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/turnback/turnback"
)

// TestCheckpointFollowsAutomaticRetention: the automatic retention after
// snaps forgets turns and remembers how far it went, so a later gc drops
// a forced checkpoint made before those turns even with a policy that
// would keep every remaining turn; while its turns remain, gc keeps it,
// also a full gc with the Repo's own small policy.
func TestCheckpointFollowsAutomaticRetention(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	f := newRetFolder(t)
	f.write("f.txt", []byte("0"))
	repo := f.open(turnback.Options{KeepTurns: 2})
	defer func() { repo.Close() }()
	turn := func(i int) {
		t.Helper()
		if _, err := repo.Snap(ctx, fmt.Sprintf("turn %d", i)); err != nil {
			t.Fatal(err)
		}
		f.write("f.txt", []byte(fmt.Sprint(i)))
		if _, err := repo.End(ctx); err != nil {
			t.Fatal(err)
		}
	}
	turn(1)
	f.write("f.txt", []byte("the user's edit"))
	if _, err := repo.Undo(ctx, 1, turnback.UndoOptions{}); !errors.Is(err, turnback.ErrConflict) {
		t.Fatalf("undo over an edit: %v; want a conflict", err)
	}
	res, err := repo.Undo(ctx, 1, turnback.UndoOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	c1 := res.Checkpoint.String()
	turn(2)
	// The Repo's policy keeps 2 turns: nothing after C1 is forgotten yet.
	g, err := repo.GC(ctx, turnback.GCOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Checkpoints) != 0 {
		t.Fatalf("gc with turn 2 still kept dropped checkpoints %+v", g.Checkpoints)
	}
	// 2 + the slack of 10: the 13th snap trims the session to 2 turns.
	for i := 3; i <= 14; i++ {
		turn(i)
	}
	turns, _, err := repo.Turns(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) > 12 || turns[len(turns)-1].N == 2 {
		t.Fatalf("automatic retention did not trim: turns %v", turnNumbers(turns))
	}
	// A newer checkpoint (the newest always stays), then a gc keeping
	// every turn that is left: C1's turns are gone, so C1 goes.
	if _, err := repo.Undo(ctx, 1, turnback.UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	g, err = repo.GC(ctx, turnback.GCOptions{Keep: -1, OlderThan: -1, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Checkpoints) != 1 || g.Checkpoints[0].ID != c1 || g.Checkpoints[0].Turn != 1 || g.Checkpoints[0].Session != "default" {
		t.Fatalf("gc keeping every turn, after automatic retention forgot C1's: would drop %+v; want C1 %s", g.Checkpoints, c1)
	}
	if _, err := repo.GC(ctx, turnback.GCOptions{Keep: -1, OlderThan: -1}); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Restore(ctx, c1, turnback.RestoreOptions{}); !errors.Is(err, turnback.ErrUnknownID) {
		t.Fatalf("restore C1 after gc: %v; want unknown id", err)
	}
}
