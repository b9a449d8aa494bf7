package agent

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

// FuzzSessionName: any non-empty session id an agent sends becomes a
// valid session name, the same one every time.
func FuzzSessionName(f *testing.F) {
	for _, s := range []string{"3f1c9a52-7d0e-4b8a-9c41-2e5d6f7a8b90", "a b/c", "\x00\x7f", "é", "\xff\xfe", string(make([]byte, 300)), ".", "..", `a\b`, "a\u202eb", "\u00a0", strings.Repeat("é", 150)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if id == "" {
			return
		}
		name := SessionName(id)
		if err := turnback.ValidSession(name); err != nil {
			t.Fatalf("SessionName(%q) = %q: %v", id, name, err)
		}
		if !utf8.ValidString(name) || hasControl(name) {
			t.Fatalf("SessionName(%q) = %q: invalid UTF-8 or a control character", id, name)
		}
		if again := SessionName(id); again != name {
			t.Fatalf("SessionName(%q) is %q, then %q", id, name, again)
		}
	})
}

// hasControl reports a raw control byte (C0, DEL) or a C1 control.
func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || termout.IsC1(r) {
			return true
		}
	}
	return false
}
