package cli

import (
	"io"
	"strings"
	"testing"

	"github.com/turnback/turnback/cmd/turnback/help"
)

// TestHelpFilledWhenShown: the long help and examples are read when
// help or usage is shown, not by every process (issue #34), and what
// is shown is each command's own text: "remote show" keeps remote's,
// not show's.
func TestHelpFilledWhenShown(t *testing.T) {
	root := newRootCmd(&globals{})
	snap, _, err := root.Find([]string{"snap"})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Long != "" || snap.Example != "" {
		t.Errorf("snap's help was read before any help was shown")
	}

	e := newCLI(t, "work")
	e.inProcess = true
	for _, c := range []struct {
		args        []string
		want, avoid []string
	}{
		{[]string{"snap", "--help"}, []string{help.Long("snap"), help.Example("snap")}, nil},
		{[]string{"help", "show"}, []string{help.Long("show"), help.Example("show")}, nil},
		{[]string{"--help"}, []string{help.Long("turnback"), help.Example("turnback")}, nil},
		{[]string{"remote", "show", "--help"}, []string{"Print the store's remote"}, []string{help.Long("show")}},
		{[]string{"help", "remote", "gc"}, []string{"Delete from the remote"}, []string{help.Long("gc")}},
		{[]string{"help", "nosuch"}, []string{help.Example("turnback")}, nil}, // usage of the root
	} {
		r := e.exec("", nil, c.args...)
		name := "turnback " + strings.Join(c.args, " ")
		if r.code != 0 {
			t.Errorf("%s: %v", name, r)
			continue
		}
		for _, w := range c.want {
			if w == "" || !strings.Contains(r.stdout, w) {
				t.Errorf("%s: the output lacks %q:\n%s", name, w, r.stdout)
			}
		}
		for _, a := range c.avoid {
			if strings.Contains(r.stdout, a) {
				t.Errorf("%s: the output has another command's help %q", name, a)
			}
		}
	}
}

// BenchmarkNewRootCmd: the command tree every process builds before it
// runs anything.
func BenchmarkNewRootCmd(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		newRootCmd(&globals{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }})
	}
}
