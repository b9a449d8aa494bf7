package treepath

import (
	"reflect"
	"testing"

	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/restore"
)

func TestDirs(t *testing.T) {
	got := Dirs([]string{"a/b/c", "a/d", "e"})
	want := map[string]bool{"": true, "a": true, "a/b": true, "a/b/c": true, "a/d": true, "e": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Dirs = %v, want %v", got, want)
	}
	if got := Dirs(nil); !reflect.DeepEqual(got, map[string]bool{"": true}) {
		t.Errorf("Dirs(nil) = %v, want the top alone", got)
	}
}

// TestKeepVouched: the vouched paths stay, and of the paths above them
// only directories the folder lacks and the state holds.
func TestKeepVouched(t *testing.T) {
	dir := &manifest.Entry{Kind: manifest.KindDir, Mode: 0o755}
	file := &manifest.Entry{Kind: manifest.KindFile, Mode: 0o644}
	actions := []restore.Action{
		{Path: "a", New: dir},              // above a/b/f, missing: kept
		{Path: "a/b", Old: dir, New: dir},  // above, present: not kept
		{Path: "a/b/f", Old: file},         // vouched: kept
		{Path: "c", New: file},             // not vouched
		{Path: "d", New: file},             // above d/g, not a directory: not kept
		{Path: "d/g", Old: file, New: nil}, // vouched
		{Path: "e", Old: dir},              // above e/h, being removed: not kept
	}
	var got []string
	for _, a := range KeepVouched(actions, []string{"a/b/f", "d/g", "e/h"}) {
		got = append(got, a.Path)
	}
	if want := []string{"a", "a/b/f", "d/g"}; !reflect.DeepEqual(got, want) {
		t.Errorf("KeepVouched kept %q, want %q", got, want)
	}
	if got := KeepVouched(actions, nil); len(got) != 0 {
		t.Errorf("KeepVouched with no paths kept %v", got)
	}
}
