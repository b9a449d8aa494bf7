package model

import (
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
