package model

// A snapshot's id is its tree's hash, so two captures of one tree share
// one snapshot record. What they skipped may differ: an ignored ignore
// file with other rules, a generated directory gone since. The record
// then keeps what both say, on the safe side: a restore to the id
// leaves alone what either capture left alone.

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"

	"github.com/turnback/turnback/cas"
)

// MergeSkips is what two captures of one tree skipped, old and now,
// kept on the safe side. A rule blob stays where both kept the same
// one; otherwise its directory's rules become unknown. Unknown
// directories and generated ones are the union; inline rules
// (RuleFiles) make their directories unknown. A path counts as tracked
// and absent (TrackedIgnored) only if both say so. If either is nil
// (unknown), it is now.
func MergeSkips(old, now *SkipInfo) *SkipInfo {
	if old == nil || now == nil {
		return now
	}
	out := &SkipInfo{
		Generated:    union(now.Generated, old.Generated),
		RulesUnknown: union(now.RulesUnknown, old.RulesUnknown),
	}
	for _, p := range now.TrackedIgnored {
		if slices.Contains(old.TrackedIgnored, p) {
			out.TrackedIgnored = append(out.TrackedIgnored, p)
		}
	}
	paths := slices.Sorted(maps.Keys(now.RuleBlobs))
	for _, p := range slices.Sorted(maps.Keys(old.RuleBlobs)) {
		if _, ok := now.RuleBlobs[p]; !ok {
			paths = append(paths, p)
		}
	}
	for _, p := range paths {
		b, inNow := now.RuleBlobs[p]
		if a, inOld := old.RuleBlobs[p]; inNow && inOld && a == b {
			if out.RuleBlobs == nil {
				out.RuleBlobs = map[string]string{}
			}
			out.RuleBlobs[p] = b
			continue
		}
		out.RulesUnknown = addDir(out.RulesUnknown, ParentDir(p))
	}
	for _, s := range []*SkipInfo{now, old} {
		for _, p := range slices.Sorted(maps.Keys(s.RuleFiles)) {
			out.RulesUnknown = addDir(out.RulesUnknown, ParentDir(p))
		}
	}
	return out
}

// union is a with the items of b it lacks added, in order.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		out = addDir(out, s)
	}
	return out
}

// MergeSnapshot is the snapshot record e to write where old is stored
// (nil: none): e with its skips merged with old's (MergeSkips), except
// that a result keeps old's TrackedIgnored. The rest is e's. If either side's skips are unknown, or e does not
// decode, it is e.
func MergeSnapshot(old *SnapshotRecord, e cas.Entry) cas.Entry {
	if old == nil {
		return e
	}
	var rec SnapshotRecord
	if err := json.Unmarshal(e.Value, &rec); err != nil {
		return e
	}
	was, now := SkipInfoOfRecord(old), SkipInfoOfRecord(&rec)
	if was == nil || now == nil {
		return e
	}
	m := MergeSkips(was, now)
	if rec.Kind == KindResult {
		// A restore's result was planned, not captured: the list it
		// carries is its start's. The tree's own capture knows better.
		m.TrackedIgnored = was.TrackedIgnored
	}
	if rec.RuleFiles == nil && reflect.DeepEqual(*m, SkipInfo{Generated: now.Generated, RuleBlobs: now.RuleBlobs, RulesUnknown: now.RulesUnknown, TrackedIgnored: now.TrackedIgnored}) {
		return e // nothing to add: e as it was encoded
	}
	rec.Generated, rec.RuleBlobs, rec.RulesUnknown, rec.RuleFiles = m.Generated, m.RuleBlobs, m.RulesUnknown, nil
	rec.TrackedIgnored = m.TrackedIgnored
	return cas.Entry{Key: e.Key, Value: EncodeJSON(rec)}
}
