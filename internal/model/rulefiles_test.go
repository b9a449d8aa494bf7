package model

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/walker"
)

// TestSkipInfoOfRuleFiles: SkipInfoOf keeps the blob of every ignore
// file a capture skipped and kept; one skipped without a blob makes its
// directory's rules unknown. The record keeps both through JSON, an
// amendment included. Rules inline in an older record are not copied
// into a new one: their directories become unknown. A record made
// before the evidence rules tells nothing.
func TestSkipInfoOfRuleFiles(t *testing.T) {
	b1, b2 := hashOf(7).String(), hashOf(8).String()
	skipped := []walker.Ignored{
		{Path: ".ignore", Rule: "file", Rules: b1},
		{Path: "empty/.ignore", Rule: "file", Rules: cas.EmptyHash.String()},
		{Path: "gen", Dir: true, Rule: "evidence"},
		{Path: "notes.log", Rule: "file"},
		{Path: "sub/.ignore", Rule: "file", Rules: b2},
		{Path: "sub/.turnbackignore", Rule: "file"}, // not kept
		{Path: "sub/deep/.gitignore", Rule: "file"}, // not kept
		{Path: "sub/deep/.ignore", Rule: "file"},    // the same directory
		{Path: "x/.ignore", Dir: true, Rule: "file"},
	}
	sk := SkipInfoOf(skipped)
	want := &SkipInfo{Generated: []string{"gen"}, RuleBlobs: map[string]string{
		".ignore": b1, "empty/.ignore": cas.EmptyHash.String(), "sub/.ignore": b2,
	}, RulesUnknown: []string{"sub", "sub/deep"}}
	if !reflect.DeepEqual(sk, want) {
		t.Fatalf("SkipInfoOf: %+v\nwant %+v", sk, want)
	}
	h, amended := hashOf(1), hashOf(2)
	e := SnapshotEntry(h, KindSnap, 0, 0, sk)
	var rec SnapshotRecord
	if err := json.Unmarshal(e.Value, &rec); err != nil {
		t.Fatal(err)
	}
	if got := SkipInfoOfRecord(&rec); !reflect.DeepEqual(got, want) {
		t.Errorf("the record gives back %+v", got)
	}
	out := AmendBatch(MetaBatch{Writes: []cas.Entry{SnapshotEntry(h, KindCheckpoint, 0, 0, sk)}}, h, amended)
	rec = SnapshotRecord{}
	if err := json.Unmarshal(out.Writes[1].Value, &rec); err != nil {
		t.Fatal(err)
	}
	if got := SkipInfoOfRecord(&rec); !reflect.DeepEqual(got, want) {
		t.Errorf("amended record %s", out.Writes[1].Value)
	}
	if SkipInfoOfRecord(&SnapshotRecord{RuleBlobs: rec.RuleBlobs}) != nil {
		t.Errorf("a record before the evidence rules tells skips")
	}
	// An older record's inline rules: read, and not copied on.
	var old SnapshotRecord
	if err := json.Unmarshal([]byte(`{"v":1,"kind":"checkpoint","rules":2,"rule_files":{"a/.ignore":"c2VjcmV0Cg=="}}`), &old); err != nil {
		t.Fatal(err)
	}
	osk := SkipInfoOfRecord(&old)
	if string(osk.RuleFiles["a/.ignore"]) != "secret\n" {
		t.Fatalf("older record's rules %q", osk.RuleFiles)
	}
	rec = SnapshotRecord{}
	if err := json.Unmarshal(SnapshotEntry(amended, KindCheckpoint, 0, 0, osk).Value, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.RuleFiles != nil || !reflect.DeepEqual(rec.RulesUnknown, []string{"a"}) {
		t.Errorf("a record of an older one's skips: %+v", rec)
	}
}
