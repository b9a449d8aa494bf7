//go:build unix

package turnback_test

import (
	"os"
	"reflect"
	"testing"

	"github.com/turnback/turnback"
)

// TestCheckpointsMarkPartial: Checkpoints marks a checkpoint that is a
// partial state (a scoped undo's, with a change on the way to the
// turn's paths) with the number of paths it holds, as restore of it finds
// it, and leaves a whole one (an undo's that closed the open turn)
// unmarked; Show says the same; both through a daemon too.
func TestCheckpointsMarkPartial(t *testing.T) {
	t.Parallel()
	rt := scopeAttackTree(t)
	rt.snap()
	rt.write("c/1.txt", "c by the agent") // the turn stays open
	whole, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo of the open turn", err)
	// A change on the way to the turn's paths, which the next undo
	// reads: its checkpoint is a new state.
	must(t, os.Chmod(rt.path("a"), 0o700))
	part, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("scoped undo", err)
	check := func(how string, list []turnback.Checkpoint, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", how, err)
		}
		if len(list) != 2 || list[0].ID != part.Checkpoint.String() || list[1].ID != whole.Checkpoint.String() {
			t.Fatalf("%s: %+v, want the scoped undo's checkpoint then the first undo's", how, list)
		}
		if want := (&turnback.PartialCount{Paths: 3}); !reflect.DeepEqual(list[0].Partial, want) {
			t.Errorf("%s: the scoped undo's checkpoint: partial %+v, want %+v", how, list[0].Partial, want)
		}
		if list[1].Partial != nil {
			t.Errorf("%s: the checkpoint of the undo that closed the turn, a whole state: partial %+v", how, list[1].Partial)
		}
	}
	// Show says the same of each.
	show := func(how string, r *turnback.Repo) {
		t.Helper()
		for _, c := range []struct {
			id   string
			want *turnback.PartialCount
		}{{part.Checkpoint.String(), &turnback.PartialCount{Paths: 3}}, {whole.Checkpoint.String(), nil}} {
			info, err := r.Show(rt.ctx, c.id)
			if err != nil {
				t.Fatalf("%s: show %s: %v", how, c.id[:12], err)
			}
			if !reflect.DeepEqual(info.Partial, c.want) {
				t.Errorf("%s: show %s: partial %+v, want %+v", how, c.id[:12], info.Partial, c.want)
			}
		}
	}
	list, err := rt.repo.Checkpoints(rt.ctx)
	check("local", list, err)
	show("local", rt.repo)
	rt.repo.Close()

	_, stop := startDaemon(t, rt.dir, rt.store, "")
	defer stop()
	r, err := turnback.Open(rt.ctx, rt.dir, turnback.Options{Store: rt.store, LockWait: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.Served() {
		t.Fatal("not served by the daemon")
	}
	list, err = r.Checkpoints(rt.ctx)
	check("served", list, err)
	show("served", r)
	// Restore finds the listed paths.
	res, err := r.Restore(rt.ctx, part.Checkpoint.String(), turnback.RestoreOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Partial == nil || len(res.Partial.Paths) != 3 {
		t.Errorf("restore --dry-run of the scoped undo's checkpoint: partial %+v, want its 3 paths", res.Partial)
	}
}
