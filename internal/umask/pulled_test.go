package umask

import "testing"

func TestMasks(t *testing.T) {
	ms, added := Masks(nil).With(0o022)
	if !added || len(ms) != 1 {
		t.Fatalf("With to none: %v %v", ms, added)
	}
	if again, added := ms.With(0o022); added || len(again) != 1 {
		t.Errorf("With of a mask held: %v %v", again, added)
	}
	ms, _ = ms.With(0o077)
	for _, c := range []struct {
		perm, want uint32
		ok         bool
	}{
		{0o755, 0o777, true},
		{0o700, 0o777, true},
		{0o644, 0o666, true},
		{0o600, 0o666, true},
		{0o600, 0o664, true},  // 077
		{0o640, 0o664, false}, // no mask used gives it: a chmod
		{0o444, 0o664, false},
		{0, 0o664, false},
		{0o775, 0o777, false},
		{0o4755, 0o4777, true}, // only permission bits compared
	} {
		if got := ms.Masked(c.perm, c.want); got != c.ok {
			t.Errorf("Masked(%04o, %04o) with %03o = %v", c.perm, c.want, ms, got)
		}
	}
	if (Masks{}).Masked(0o644, 0o644) {
		t.Error("no mask used: nothing is masked")
	}
}
