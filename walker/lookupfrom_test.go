package walker

import "testing"

// TestLookupFrom: names asked in increasing order find exactly the
// record's entries, as lookup does; one asked out of order is missed
// (the capture then reads the file, as for any miss).
func TestLookupFrom(t *testing.T) {
	r := &dirRecord{entries: []cacheEntry{{name: "a"}, {name: "c"}, {name: "c.go"}, {name: "e"}}}
	for _, tc := range []struct {
		names []string
		want  []bool
	}{
		{[]string{"a", "b", "c", "c.go", "d", "e", "f"}, []bool{true, false, true, true, false, true, false}},
		{[]string{"c.go", "e"}, []bool{true, true}},
		{[]string{"0", "e", "a"}, []bool{false, true, false}},
		{nil, nil},
	} {
		cur := 0
		for i, name := range tc.names {
			ce := r.lookupFrom(name, &cur)
			if (ce != nil) != tc.want[i] || ce != nil && ce.name != name {
				t.Errorf("%q: lookupFrom(%q) = %+v, want found %v", tc.names, name, ce, tc.want[i])
			}
			if lk := r.lookup(name); tc.want[i] && lk != ce {
				t.Errorf("%q: lookupFrom(%q) = %p, lookup %p", tc.names, name, ce, lk)
			}
		}
	}
	var none *dirRecord
	if cur := 0; none.lookupFrom("a", &cur) != nil {
		t.Error("a nil record found an entry")
	}
}
