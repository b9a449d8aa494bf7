package turnback

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/turnback/turnback/internal/model"
)

// FuzzParseMeta: ParseMeta never panics; what it accepts CheckMeta
// accepts, holds every pair given, and survives a JSON round trip (the
// turn record) unchanged.
func FuzzParseMeta(f *testing.F) {
	for _, s := range []string{"message_index=12", "a=1\nb=2", "k=v=w", "=x", "a b=1", "k=\x00", "k=\xff", "k.1-2_3=é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pairs := strings.Split(s, "\n")
		m, err := ParseMeta(pairs)
		if err != nil {
			if !errors.Is(err, ErrInvalidMeta) {
				t.Fatalf("%q: %v does not wrap ErrInvalidMeta", s, err)
			}
			return
		}
		if err := CheckMeta(m); err != nil {
			t.Fatalf("%q: accepted, then refused: %v", s, err)
		}
		if len(m) != len(pairs) {
			t.Fatalf("%q: %d pairs, %d kept", s, len(pairs), len(m))
		}
		for _, p := range pairs {
			k, v, _ := strings.Cut(p, "=")
			if m[k] != v {
				t.Fatalf("%q: %s is %q", s, k, m[k])
			}
		}
		var back Turn
		if err := json.Unmarshal(model.EncodeJSON(&Turn{Meta: m}), &back); err != nil || !reflect.DeepEqual(back.Meta, m) {
			t.Fatalf("%q: round trip %v %v", s, back.Meta, err)
		}
	})
}
