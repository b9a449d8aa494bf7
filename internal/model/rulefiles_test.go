package model

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/walker"
)

// TestSkipInfoOfRuleFiles: SkipInfoOf keeps the content of the ignore
// files a capture skipped while they fit in walker.MaxRulesTotal bytes,
// and the record keeps it through JSON, an amendment included. A record
// made before the evidence rules tells nothing.
func TestSkipInfoOfRuleFiles(t *testing.T) {
	big := bytes.Repeat([]byte("x\n"), walker.MaxRulesTotal/2)
	skipped := []walker.Ignored{
		{Path: ".ignore", Rule: "file", Content: []byte("secret\n")},
		{Path: "empty/.ignore", Rule: "file", Content: []byte{}},
		{Path: "gen", Dir: true, Rule: "evidence"},
		{Path: "notes.log", Rule: "file"},
		{Path: "sub/.ignore", Rule: "file", Content: big[:len(big)-7]},
		{Path: "sub/.turnbackignore", Rule: "file", Content: []byte("over the cap\n")},
	}
	sk := SkipInfoOf(skipped)
	want := &SkipInfo{Generated: []string{"gen"}, RuleFiles: map[string][]byte{
		".ignore": []byte("secret\n"), "empty/.ignore": {}, "sub/.ignore": big[:len(big)-7],
	}}
	if !reflect.DeepEqual(sk, want) {
		t.Fatalf("SkipInfoOf: generated %v, rule files %d", sk.Generated, len(sk.RuleFiles))
	}
	h, amended := hashOf(1), hashOf(2)
	e := SnapshotEntry(h, KindSnap, 0, 0, sk)
	var rec SnapshotRecord
	if err := json.Unmarshal(e.Value, &rec); err != nil {
		t.Fatal(err)
	}
	got := SkipInfoOfRecord(&rec)
	if string(got.RuleFiles[".ignore"]) != "secret\n" || !bytes.Equal(got.RuleFiles["sub/.ignore"], big[:len(big)-7]) ||
		len(got.RuleFiles) != 3 || !reflect.DeepEqual(got.Generated, []string{"gen"}) {
		t.Errorf("the record gives back %d rule files, generated %v", len(got.RuleFiles), got.Generated)
	}
	out := AmendBatch(MetaBatch{Writes: []cas.Entry{SnapshotEntry(h, KindCheckpoint, 0, 0, sk)}}, h, amended)
	rec = SnapshotRecord{}
	if err := json.Unmarshal(out.Writes[1].Value, &rec); err != nil {
		t.Fatal(err)
	}
	if string(rec.RuleFiles[".ignore"]) != "secret\n" {
		t.Errorf("amended record %s", out.Writes[1].Value)
	}
	if SkipInfoOfRecord(&SnapshotRecord{RuleFiles: rec.RuleFiles}) != nil {
		t.Errorf("a record before the evidence rules tells skips")
	}
}
