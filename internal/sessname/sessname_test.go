package sessname

import (
	"errors"
	"path"
	"strings"
	"testing"
)

// FuzzCheck: a name Check accepts is one clean path segment of valid
// UTF-8 that ValidRune accepts rune by rune; every refusal wraps
// ErrInvalid.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"default", ".", "..", "a/b", `a\b`, "\xff", "a b", "日本", "..a", strings.Repeat("x", 201)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		err := Check(name)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("%q: %v", name, err)
			}
			return
		}
		if path.Clean(name) != name || path.Base(name) != name || strings.ContainsAny(name, `/\`) || len(name) > MaxLen {
			t.Fatalf("%q is no single segment", name)
		}
		for _, r := range name {
			if !ValidRune(r) {
				t.Fatalf("%q holds %q", name, r)
			}
		}
	})
}
