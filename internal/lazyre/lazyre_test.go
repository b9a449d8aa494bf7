package lazyre

import (
	"strings"
	"testing"
)

func TestNew(t *testing.T) {
	tests := []struct {
		expr, in, want string
	}{
		{`^a(b+)c$`, "abbc", "bb"},
		{`(?m)^x=(\d+)$`, "y\nx=42\n", "42"},
	}
	for _, tt := range tests {
		re := New(tt.expr)
		first := re()
		if re() != first {
			t.Errorf("%q: a second call compiled again", tt.expr)
		}
		if first.String() != tt.expr {
			t.Errorf("compiled %q, want %q", first.String(), tt.expr)
		}
		if m := first.FindStringSubmatch(tt.in); len(m) != 2 || m[1] != tt.want {
			t.Errorf("%q on %q: got %q, want %q", tt.expr, tt.in, m, tt.want)
		}
	}
}

// A bad pattern costs nothing until it is used, and then panics as
// regexp.MustCompile does, on every call.
func TestNewBadPattern(t *testing.T) {
	re := New(`a(`)
	for i := range 2 {
		func() {
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(r.(string), "missing closing )") {
					t.Errorf("call %d: recovered %v, want the parse panic", i, r)
				}
			}()
			re()
		}()
	}
}
