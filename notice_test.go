package turnback_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/turnback/turnback"
)

// TestNotice: undo and redo leave a notice of what they changed;
// SnapNotice returns it once, and Snap leaves it.
func TestNotice(t *testing.T) {
	rt := newRegressTree(t)
	rt.write("a.txt", "one")
	rt.snap()
	rt.write("a.txt", "two")
	for i := range turnback.NoticePaths + 2 {
		rt.write(fmt.Sprintf("d/%02d", i), "x")
	}
	rt.end()
	_, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	_, err = rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{})
	rt.do("redo", err)
	res, err := rt.repo.Snap(rt.ctx, "plain snap")
	rt.do("snap", err)
	if res.Notice != nil {
		t.Fatalf("Snap returned a notice: %+v", res.Notice)
	}
	res, err = rt.repo.SnapNotice(rt.ctx, "a question", true)
	rt.do("snap", err)
	var paths []string
	for i := range turnback.NoticePaths - 1 {
		paths = append(paths, fmt.Sprintf("d/%02d", i))
	}
	paths = append([]string{"a.txt"}, paths...)
	want := []turnback.NoticeEntry{
		{Op: "undo", Turns: []int{1}, Paths: paths, More: 3},
		{Op: "redo", Turns: []int{1}, Paths: paths, More: 3},
	}
	if res.Notice == nil || !reflect.DeepEqual(res.Notice.Entries, want) {
		t.Fatalf("SnapNotice: notice %+v, want %+v", res.Notice, want)
	}
	res, err = rt.repo.SnapNotice(rt.ctx, "again", true)
	rt.do("snap", err)
	if res.Notice != nil {
		t.Fatalf("second SnapNotice: notice %+v, want none (told once)", res.Notice)
	}
	// A later undo makes a new notice; an undo with nothing to do none.
	_, err = rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	res, err = rt.repo.SnapNotice(rt.ctx, "after", true)
	rt.do("snap", err)
	if res.Notice == nil || len(res.Notice.Entries) != 1 || res.Notice.Entries[0].Op != "undo" {
		t.Fatalf("SnapNotice after a later undo: %+v", res.Notice)
	}
}

// TestNoticeWithInterruptedUndo: an undo stopped after it changed the
// folder, before its records were committed, is finished by the next
// operation, notice included: the next SnapNotice returns it, once.
func TestNoticeWithInterruptedUndo(t *testing.T) {
	rt := newRegressTree(t)
	rt.write("a.txt", "one")
	rt.snap()
	rt.write("a.txt", "two")
	rt.end()
	rt.repo.SetRestoreHook(func(step string) error {
		if step == "commit" {
			return errors.New("killed at the commit")
		}
		return nil
	})
	if _, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{}); err == nil {
		t.Fatal("undo with a failing commit step succeeded")
	}
	rt.repo.SetRestoreHook(nil)
	res, err := rt.repo.SnapNotice(rt.ctx, "a question", true)
	rt.do("snap", err)
	want := []turnback.NoticeEntry{{Op: "undo", Turns: []int{1}, Paths: []string{"a.txt"}}}
	if res.Notice == nil || !reflect.DeepEqual(res.Notice.Entries, want) || rt.read("a.txt") != "one" {
		t.Fatalf("after the interrupted undo: notice %+v, a.txt %q; want %+v and one", res.Notice, rt.read("a.txt"), want)
	}
	if res, err = rt.repo.SnapNotice(rt.ctx, "again", true); err != nil || res.Notice != nil {
		t.Fatalf("second SnapNotice: %+v, %v; want no notice", res, err)
	}
}
