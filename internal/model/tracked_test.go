package model

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/walker"
)

// TestTrackedIgnoredRecord: a whole capture's TrackedIgnored goes into
// its snapshot record under "tracked_ignored", comes back from it, and
// stays through an amendment; a record without it, or a capture
// without any, writes no field (a record the same size as before).
func TestTrackedIgnoredRecord(t *testing.T) {
	paths := []string{"a.cfg", "build/", "src/x.cfg"}
	res := &walker.Result{Skipped: []walker.Ignored{{Path: "gen", Dir: true, Rule: "evidence"}}, TrackedIgnored: paths}
	h, amended := hashOf(1), hashOf(2)
	e := SnapshotEntry(h, KindSnap, 0, 0, SkipInfoOfResult(res))
	if !strings.Contains(string(e.Value), `"tracked_ignored":["a.cfg","build/","src/x.cfg"]`) {
		t.Errorf("record %s", e.Value)
	}
	var rec SnapshotRecord
	if err := json.Unmarshal(e.Value, &rec); err != nil {
		t.Fatal(err)
	}
	if got := SkipInfoOfRecord(&rec); !slices.Equal(got.TrackedIgnored, paths) || !slices.Equal(got.Generated, []string{"gen"}) {
		t.Errorf("the record gives back %+v", got)
	}
	out := AmendBatch(MetaBatch{Writes: []cas.Entry{SnapshotEntry(h, KindCheckpoint, 0, 0, SkipInfoOfResult(res))}}, h, amended)
	rec = SnapshotRecord{}
	if err := json.Unmarshal(out.Writes[1].Value, &rec); err != nil || !slices.Equal(rec.TrackedIgnored, paths) {
		t.Errorf("amended record %s (%v)", out.Writes[1].Value, err)
	}
	none := SnapshotEntry(h, KindSnap, 0, 0, SkipInfoOfResult(&walker.Result{}))
	if strings.Contains(string(none.Value), "tracked") {
		t.Errorf("a capture with none: %s", none.Value)
	}
}
