package model

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/turnback/turnback/cas"
)

// TestMergeSkips: two captures of one tree keep a rule blob only where
// both kept the same; any other makes its directory's rules unknown.
// Generated and unknown directories are the union; inline rules count
// as unknown; an unknown side gives the new one.
func TestMergeSkips(t *testing.T) {
	b1, b2 := hashOf(1).String(), hashOf(2).String()
	known := &SkipInfo{Generated: []string{"gen"}, RuleBlobs: map[string]string{".ignore": b1}}
	for _, c := range []struct {
		name           string
		old, now, want *SkipInfo
	}{
		{"same", known, known, known},
		{"both empty", &SkipInfo{}, &SkipInfo{}, &SkipInfo{}},
		{"old unknown", nil, known, known},
		{"new unknown", known, nil, nil},
		{"blob differs",
			&SkipInfo{RuleBlobs: map[string]string{".ignore": b1, "sub/.ignore": b2}},
			&SkipInfo{RuleBlobs: map[string]string{".ignore": b2, "sub/.ignore": b2}},
			&SkipInfo{RuleBlobs: map[string]string{"sub/.ignore": b2}, RulesUnknown: []string{""}}},
		{"blob in old only",
			&SkipInfo{RuleBlobs: map[string]string{"a/b/.ignore": b1}},
			&SkipInfo{},
			&SkipInfo{RulesUnknown: []string{"a/b"}}},
		{"blob in new only",
			&SkipInfo{},
			&SkipInfo{RuleBlobs: map[string]string{"a/.turnbackignore": b1}},
			&SkipInfo{RulesUnknown: []string{"a"}}},
		{"two files of one directory differ",
			&SkipInfo{RuleBlobs: map[string]string{"d/.ignore": b1, "d/.turnbackignore": b1}},
			&SkipInfo{RuleBlobs: map[string]string{"d/.ignore": b2, "d/.turnbackignore": b2}, RulesUnknown: []string{"d"}},
			&SkipInfo{RulesUnknown: []string{"d"}}},
		{"unions, new's order first",
			&SkipInfo{Generated: []string{"x", "gen"}, RulesUnknown: []string{"u", "v"}},
			&SkipInfo{Generated: []string{"gen", "build"}, RulesUnknown: []string{"v"}},
			&SkipInfo{Generated: []string{"gen", "build", "x"}, RulesUnknown: []string{"v", "u"}}},
		{"inline rules of the old record",
			&SkipInfo{RuleFiles: map[string][]byte{"old/.ignore": []byte("x\n")}},
			&SkipInfo{Generated: []string{"gen"}},
			&SkipInfo{Generated: []string{"gen"}, RulesUnknown: []string{"old"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := MergeSkips(c.old, c.now); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("MergeSkips(%+v, %+v) = %+v; want %+v", c.old, c.now, got, c.want)
			}
		})
	}
}

// TestMergeSnapshot: the record written keeps the new one's fields and
// the merged skips; with nothing to merge it is the new one byte for
// byte; an unknown side, or a record that does not decode, gives the
// new one.
func TestMergeSnapshot(t *testing.T) {
	h := hashOf(9)
	b1, b2 := hashOf(1).String(), hashOf(2).String()
	first := &SkipInfo{Generated: []string{"cache"}, RuleBlobs: map[string]string{".ignore": b1}}
	second := &SkipInfo{RuleBlobs: map[string]string{".ignore": b2}}
	decode := func(e cas.Entry) *SnapshotRecord {
		t.Helper()
		var rec SnapshotRecord
		if err := json.Unmarshal(e.Value, &rec); err != nil {
			t.Fatal(err)
		}
		return &rec
	}
	old := decode(SnapshotEntry(h, KindSnap, 3, 4, first))
	e := SnapshotEntry(h, KindResult, 5, 6, second)
	rec := decode(MergeSnapshot(old, e))
	if rec.Kind != KindResult || rec.Files != 5 || rec.Bytes != 6 || rec.Rules != SkipRules ||
		!slices.Equal(rec.Generated, []string{"cache"}) || rec.RuleBlobs != nil || !slices.Equal(rec.RulesUnknown, []string{""}) {
		t.Fatalf("merged record %+v", rec)
	}
	same := SnapshotEntry(h, KindSnap, 3, 4, first)
	for _, c := range []struct {
		name string
		old  *SnapshotRecord
		e    cas.Entry
	}{
		{"no record", nil, e},
		{"same skips", old, same},
		{"old unknown", &SnapshotRecord{Kind: KindSnap}, e},
		{"new unknown", old, SnapshotEntry(h, KindSnap, 0, 0, nil)},
		{"new does not decode", old, cas.Entry{Key: SnapKey(h), Value: []byte("{")}},
	} {
		if got := MergeSnapshot(c.old, c.e); string(got.Key) != string(c.e.Key) || string(got.Value) != string(c.e.Value) {
			t.Errorf("%s: MergeSnapshot = %s; want the new record %s", c.name, got.Value, c.e.Value)
		}
	}
	// TrackedIgnored: both must say a path is absent; a result, being
	// planned, keeps what the tree's capture said.
	listed := func(l ...string) *SkipInfo { return &SkipInfo{TrackedIgnored: l} }
	for _, c := range []struct {
		name     string
		old, now *SkipInfo
		kind     string
		want     []string
	}{
		{"snap, both", listed("a.cfg", "b/"), listed("b/", "c"), KindSnap, []string{"b/"}},
		{"checkpoint, old none", listed(), listed("a.cfg"), KindCheckpoint, nil},
		{"result, carried none", listed("a.cfg"), listed(), KindResult, []string{"a.cfg"}},
		{"result, carried other", listed("a.cfg"), listed("x"), KindResult, []string{"a.cfg"}},
	} {
		rec := decode(MergeSnapshot(decode(SnapshotEntry(h, KindSnap, 0, 0, c.old)), SnapshotEntry(h, c.kind, 0, 0, c.now)))
		if !slices.Equal(rec.TrackedIgnored, c.want) {
			t.Errorf("%s: tracked_ignored %q, want %q", c.name, rec.TrackedIgnored, c.want)
		}
	}
	// A partial record stays partial; a foreign one is the new one's.
	part := PartialEntry(SnapshotEntry(h, KindCheckpoint, 0, 0, second), []string{"a"})
	old.Foreign = true
	if rec := decode(MergeSnapshot(old, part)); !rec.Partial || !slices.Equal(rec.Paths, []string{"a"}) || rec.Foreign {
		t.Fatalf("merged partial record %+v", rec)
	}
}

// FuzzMergeSnapshot: whatever the two records hold, the merged one
// decodes, keeps only the rule blobs both agree on, makes the
// directory of every other unknown, loses no generated or unknown
// directory, and merging it again changes nothing.
func FuzzMergeSnapshot(f *testing.F) {
	h := hashOf(3)
	b1, b2 := hashOf(1).String(), hashOf(2).String()
	for _, s := range []*SkipInfo{
		nil, {}, {Generated: []string{"g"}, RuleBlobs: map[string]string{".ignore": b1, "a/.ignore": b2}},
		{RuleBlobs: map[string]string{".ignore": b2}, RulesUnknown: []string{"x"}},
	} {
		f.Add(SnapshotEntry(h, KindSnap, 1, 1, s).Value, SnapshotEntry(h, KindSnap, 1, 1, &SkipInfo{RuleBlobs: map[string]string{".ignore": b1}}).Value)
	}
	f.Add([]byte(`{"v":1,"rules":2,"rule_files":{"d/.ignore":"eA=="}}`), []byte(`{"v":1,"rules":2,"rule_files":{"e/.ignore":"eA=="}}`))
	f.Fuzz(func(t *testing.T, oldData, newData []byte) {
		var old, rec SnapshotRecord
		if json.Unmarshal(oldData, &old) != nil {
			return
		}
		e := cas.Entry{Key: SnapKey(h), Value: newData}
		out := MergeSnapshot(&old, e)
		if json.Unmarshal(newData, &rec) != nil || old.Rules < SkipRules || rec.Rules < SkipRules {
			if string(out.Value) != string(newData) {
				t.Fatalf("nothing to merge, yet %s became %s", newData, out.Value)
			}
			return
		}
		var got SnapshotRecord
		if err := json.Unmarshal(out.Value, &got); err != nil {
			t.Fatalf("merged record does not decode: %v", err)
		}
		if got.Rules < SkipRules {
			t.Fatalf("merged record %s has unknown skips", out.Value)
		}
		for _, side := range []SnapshotRecord{old, rec} {
			for p, b := range side.RuleBlobs {
				if k, ok := got.RuleBlobs[p]; ok && k == b {
					continue
				}
				if !slices.Contains(got.RulesUnknown, ParentDir(p)) {
					t.Fatalf("blob of %s dropped, yet its directory's rules are not unknown: %s", p, out.Value)
				}
			}
			for p := range side.RuleFiles {
				if !slices.Contains(got.RulesUnknown, ParentDir(p)) {
					t.Fatalf("inline rules of %s, yet its directory's rules are not unknown: %s", p, out.Value)
				}
			}
			for _, d := range side.Generated {
				if !slices.Contains(got.Generated, d) {
					t.Fatalf("generated %q lost: %s", d, out.Value)
				}
			}
			for _, d := range side.RulesUnknown {
				if !slices.Contains(got.RulesUnknown, d) {
					t.Fatalf("unknown %q lost: %s", d, out.Value)
				}
			}
		}
		for p, b := range got.RuleBlobs {
			if old.RuleBlobs[p] != b || rec.RuleBlobs[p] != b {
				t.Fatalf("blob of %s kept though the two differ: %s", p, out.Value)
			}
		}
		again := MergeSnapshot(&old, out)
		var twice SnapshotRecord
		if err := json.Unmarshal(again.Value, &twice); err != nil || !reflect.DeepEqual(twice, got) {
			t.Fatalf("merging again changed %s into %s", out.Value, again.Value)
		}
	})
}
