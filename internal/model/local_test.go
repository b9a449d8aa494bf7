package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/turnback/turnback/cas"
)

func hashOf(b byte) cas.Hash {
	var h cas.Hash
	h[0] = b
	return h
}

// TestLocalizeLater: the pseudo-records LocalizeEntry makes come out of
// a batch's writes, by session; the other writes stay in order; one
// with a malformed state id is dropped, never stored.
func TestLocalizeLater(t *testing.T) {
	a, b := hashOf(1), hashOf(2)
	other := cas.Entry{Key: []byte("m/sess/s"), Value: []byte("{}")}
	bad := cas.Entry{Key: []byte(PrefixLocalize + "z"), Value: []byte("nothex")}
	writes := []cas.Entry{LocalizeEntry("s", a), other, bad, LocalizeEntry("t", b), SnapshotEntry(a, KindSnap, 0, 0, nil)}
	rest, later := LocalizeLater(writes)
	if len(rest) != 2 || string(rest[0].Key) != "m/sess/s" || string(rest[1].Key) != string(SnapKey(a)) {
		t.Errorf("rest = %q", rest)
	}
	if want := map[string]cas.Hash{"s": a, "t": b}; !reflect.DeepEqual(later, want) {
		t.Errorf("later = %v, want %v", later, want)
	}
	rest, later = LocalizeLater([]cas.Entry{other})
	if len(rest) != 1 || later != nil {
		t.Errorf("without pseudo-records: %q, %v", rest, later)
	}
}

// TestKeepPulled: the record takes the session's new revision and marks
// its base live; a malformed base is corrupt.
func TestKeepPulled(t *testing.T) {
	base := hashOf(3)
	m := &PulledRecord{Rev: "old", Last: hashOf(4).String(), Base: base.String(), Turns: []int{2}}
	s := &SessionRecord{Name: "s", Rev: "new"}
	live := map[cas.Hash]bool{}
	e, err := KeepPulled(m, s, live)
	if err != nil {
		t.Fatal(err)
	}
	if !live[base] || len(live) != 1 {
		t.Errorf("live = %v, want the base alone", live)
	}
	want := `{"rev":"new","last":"` + hashOf(4).String() + `","base":"` + base.String() + `","turns":[2]}`
	if string(e.Key) != PrefixPulled+"s" || string(e.Value) != want {
		t.Errorf("entry %s = %s, want %s", e.Key, e.Value, want)
	}
	m.Base = "zz"
	if _, err := KeepPulled(m, s, live); !errors.Is(err, cas.ErrCorrupt) {
		t.Errorf("malformed base: %v, want ErrCorrupt", err)
	}
}

func TestSkipsKey(t *testing.T) {
	if got, want := string(SkipsKey("s", 12)), "m/skips/s/000000000012"; got != want {
		t.Errorf("SkipsKey = %q, want %q", got, want)
	}
}

// TestAmendBatch: session records and the checkpoint record name the
// amended checkpoint, turn records and other writes stay as they are,
// and the amended checkpoint gets a record with cp's skips, partial
// when cp's is.
func TestAmendBatch(t *testing.T) {
	cp, amended, result := hashOf(5), hashOf(6), hashOf(7)
	sess := &SessionRecord{Name: "s", Redo: []UndoGroup{{Turns: []int{1}, Checkpoint: cp.String(), Expected: result.String()}}}
	turn := cas.Entry{Key: TurnKey("s", 1), Value: []byte(`{"before":"` + cp.String() + `"}`)}
	cpRec := CheckpointEntry(cp, CheckpointRecord{Session: "s", Command: "undo turn 1"})
	snap := PartialEntry(SnapshotEntry(cp, KindCheckpoint, 0, 0, &SkipInfo{Generated: []string{"node_modules"}}), []string{"a"})
	m := MetaBatch{Writes: []cas.Entry{SessionEntry(sess), turn, cpRec, snap}, Deletes: [][]byte{[]byte("k")}, Checkpoint: cp.String(), Result: result.String()}
	out := AmendBatch(m, cp, amended)
	if out.Checkpoint != amended.String() || out.Result != result.String() || len(out.Deletes) != 1 || len(out.Writes) != 5 {
		t.Fatalf("AmendBatch = %+v", out)
	}
	if bytes.Contains(out.Writes[0].Value, []byte(cp.String())) || !bytes.Contains(out.Writes[0].Value, []byte(amended.String())) {
		t.Errorf("session record still names cp: %s", out.Writes[0].Value)
	}
	if !bytes.Equal(out.Writes[1].Value, turn.Value) {
		t.Errorf("turn record changed: %s", out.Writes[1].Value)
	}
	if !bytes.Equal(out.Writes[2].Key, CheckpointKey(amended)) || !bytes.Equal(out.Writes[2].Value, cpRec.Value) {
		t.Errorf("checkpoint record: %s = %s", out.Writes[2].Key, out.Writes[2].Value)
	}
	if !bytes.Equal(out.Writes[3].Key, SnapKey(cp)) {
		t.Errorf("cp's snapshot record moved: %s", out.Writes[3].Key)
	}
	var rec SnapshotRecord
	if err := json.Unmarshal(out.Writes[4].Value, &rec); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Writes[4].Key, SnapKey(amended)) || rec.Kind != KindCheckpoint || !rec.Partial ||
		!reflect.DeepEqual(rec.Paths, []string{"a"}) || rec.Rules != SkipRules || !reflect.DeepEqual(rec.Generated, []string{"node_modules"}) {
		t.Errorf("amended record %s = %s", out.Writes[4].Key, out.Writes[4].Value)
	}
	// A whole checkpoint's amendment is whole.
	out = AmendBatch(MetaBatch{Writes: []cas.Entry{SnapshotEntry(cp, KindCheckpoint, 0, 0, nil)}}, cp, amended)
	rec = SnapshotRecord{}
	if err := json.Unmarshal(out.Writes[1].Value, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Partial || rec.Rules == SkipRules {
		t.Errorf("amended record of a whole checkpoint: %s", out.Writes[1].Value)
	}
}
