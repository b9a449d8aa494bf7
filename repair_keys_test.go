package turnback

import (
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
)

// TestMatchKey: a damaged key is taken for a state only when that state
// alone is nearest, within keyMatchBytes.
func TestMatchKey(t *testing.T) {
	a := cas.Sum([]byte("a"))
	b := cas.Sum([]byte("b"))
	flip := func(h cas.Hash, at ...int) []byte {
		k := []byte(model.PrefixSnap + h.String())
		for _, i := range at {
			k[len(model.PrefixSnap)+i] ^= 0xff
		}
		return k
	}
	// A state whose id differs from a's in one hex digit: a key damaged
	// at that digit is as near to one as to the other.
	id := []byte(a.String())
	if id[3] = '0'; a.String()[3] == '0' {
		id[3] = '1'
	}
	near, err := cas.ParseHash(string(id))
	if err != nil || near == a {
		t.Fatal(near, err)
	}
	twin := flip(a, 3)
	for _, c := range []struct {
		name string
		key  []byte
		want []cas.Hash
		ok   bool
		is   cas.Hash
	}{
		{"one byte", flip(a, 50), []cas.Hash{a, b}, true, a},
		{"four bytes", flip(a, 1, 20, 40, 60), []cas.Hash{a, b}, true, a},
		{"five bytes", flip(a, 1, 20, 40, 60, 63), []cas.Hash{a, b}, false, cas.Hash{}},
		{"no state", flip(a, 50), []cas.Hash{b}, false, cas.Hash{}},
		{"a tie", twin, []cas.Hash{a, near}, false, cas.Hash{}},
		{"other length", []byte(model.PrefixSnap + a.String() + "x"), []cas.Hash{a}, false, cas.Hash{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, ok := matchKey(c.key, model.PrefixSnap, c.want)
			if ok != c.ok || ok && h != c.is {
				t.Errorf("matchKey = %s, %v; want %s, %v", h.Short(), ok, c.is.Short(), c.ok)
			}
		})
	}
}
