package model

import (
	"reflect"
	"testing"
)

func TestNetReport(t *testing.T) {
	note := func(p, why string) PathNote { return PathNote{Path: p, Reason: why} }
	tests := []struct {
		name                       string
		steps                      []StepReport
		restored, deleted, created []string
		conflicts, notRestorable   []PathNote
	}{
		{name: "none"},
		{
			name:     "one step, sorted",
			steps:    []StepReport{{Restored: []string{"b", "a"}, Deleted: []string{"d"}, Created: []string{"c"}}},
			restored: []string{"a", "b"}, deleted: []string{"d"}, created: []string{"c"},
		},
		{
			name:  "created then deleted is not listed",
			steps: []StepReport{{Created: []string{"x"}}, {Deleted: []string{"x"}}},
		},
		{
			name:     "deleted then created is restored",
			steps:    []StepReport{{Deleted: []string{"x"}}, {Created: []string{"x"}}},
			restored: []string{"x"},
		},
		{
			name:    "rewritten then deleted is deleted",
			steps:   []StepReport{{Restored: []string{"x"}}, {Deleted: []string{"x"}}},
			deleted: []string{"x"},
		},
		{
			name: "the last step's note, in first order",
			steps: []StepReport{
				{Conflicts: []PathNote{note("b", "1"), note("a", "1")}, NotRestorable: []PathNote{note("n", "1")}},
				{Conflicts: []PathNote{note("a", "2"), note("c", "2")}},
			},
			conflicts:     []PathNote{note("b", "1"), note("a", "2"), note("c", "2")},
			notRestorable: []PathNote{note("n", "1")},
		},
	}
	for _, tt := range tests {
		r, d, c, cs, ns := NetReport(tt.steps)
		for _, got := range []struct {
			what      string
			got, want any
		}{{"restored", r, tt.restored}, {"deleted", d, tt.deleted}, {"created", c, tt.created},
			{"conflicts", cs, tt.conflicts}, {"not restorable", ns, tt.notRestorable}} {
			if !reflect.DeepEqual(got.got, got.want) {
				t.Errorf("%s: %s = %#v, want %#v", tt.name, got.what, got.got, got.want)
			}
		}
	}
}
