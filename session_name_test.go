package turnback

import (
	"errors"
	"strings"
	"testing"
)

// TestSessionNameRule: one rule for every layer. A name is one path
// segment that prints as itself: never "." or "..", no slash,
// backslash, space or control character, valid UTF-8, at most 200
// bytes. Every refusal wraps ErrBadSession.
func TestSessionNameRule(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"default", true}, {"agent-1", true}, {"..a", true}, {"a.", true}, {"a..b", true},
		{"Ünïcödé", true}, {"日本", true}, {"a%2Fb", true}, {"Foo", true}, {strings.Repeat("a", 200), true},
		{"", false}, {".", false}, {"..", false}, {"a/b", false}, {"/", false}, {`a\b`, false}, {`\`, false},
		{"a\x00b", false}, {"a\x01", false}, {"a\x7f", false}, {"a\u0085", false}, {"a b", false},
		{"a\u00a0b", false}, {"a\u202eb", false}, {"\xff", false}, {"a\xc3", false}, {"a\ufffd", false},
		{strings.Repeat("a", 201), false}, {"\t", false}, {"a\nb", false},
	} {
		err := ValidSession(c.name)
		if c.ok != (err == nil) || (err != nil && !errors.Is(err, ErrBadSession)) {
			t.Errorf("ValidSession(%q) = %v, want ok %v", c.name, err, c.ok)
		}
		if !c.ok && c.name != "" { // Open takes "" as "default"
			if _, err := Open(t.Context(), t.TempDir(), Options{Store: t.TempDir(), Session: c.name}); !errors.Is(err, ErrBadSession) {
				t.Errorf("Open with session %q: %v", c.name, err)
			}
		}
	}
}
