package model

import (
	"fmt"
	"reflect"
	"testing"
)

func TestNoticeAdd(t *testing.T) {
	n := &Notice{}
	changed := []string{"b/x", "a", "b", "b/y"}
	n.Add("undo", []int{2, 3}, changed)
	want := []NoticeEntry{{Op: "undo", Turns: []int{2, 3}, Paths: []string{"a", "b/x", "b/y"}}}
	if !reflect.DeepEqual(n.Entries, want) || n.Version != MetaVersion {
		t.Fatalf("entries %+v", n.Entries)
	}
	if changed[0] != "b/x" {
		t.Errorf("Add reordered its argument: %v", changed)
	}
	var many []string
	for i := range NoticePaths + 3 {
		many = append(many, fmt.Sprintf("f%02d", i))
	}
	n.Add("redo", []int{4}, many)
	if e := n.Entries[1]; len(e.Paths) != NoticePaths || e.More != 3 || e.Paths[0] != "f00" {
		t.Fatalf("capped entry %+v", e)
	}
	for i := range noticeEntries {
		n.Add("undo", []int{10 + i}, nil)
	}
	if len(n.Entries) != noticeEntries || n.Entries[0].Turns[0] != 10 {
		t.Fatalf("kept %d entries, oldest %v", len(n.Entries), n.Entries[0].Turns)
	}
}
