package cli

import (
	"bytes"
	"slices"
	"testing"

	"github.com/turnback/turnback/cmd/turnback/extra"
	"github.com/turnback/turnback/cmd/turnback/full"
)

// TestForwardedName: turnback hands exactly turnback-full's own
// commands (and watch) over, whatever global flags come first, and
// runs everything else itself.
func TestForwardedName(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"snap"}, ""},
		{[]string{"mcp"}, "mcp"},
		{[]string{"push", "--all"}, "push"},
		{[]string{"-C", "dir", "remote", "show"}, "remote"},
		{[]string{"-Cdir", "pull"}, "pull"},
		{[]string{"--dir=x", "--store", "s", "--session", "a", "--json", "--force", "clone", "s3://b/p", "f"}, "clone"},
		{[]string{"--agent", "claude", "ui"}, "ui"},
		{[]string{"help", "remote", "gc"}, "remote"},
		{[]string{"help", "snap"}, ""},
		{[]string{"help", "help", "ui"}, ""},
		{[]string{"--help", "mcp"}, "mcp"},
		{[]string{"watch", "--detach"}, "watch"},
		{[]string{"-C", "mcp", "snap"}, ""},      // mcp is -C's value
		{[]string{"--store", "push", "log"}, ""}, // push is --store's value
		{[]string{"--nosuch", "mcp"}, ""},        // cobra reports the flag
		{[]string{"--", "mcp"}, ""},
		{[]string{"snap", "-m", "mcp"}, ""},
		{[]string{"log", "push"}, ""},
		{[]string{"-C"}, ""},
	} {
		if got := forwardedName(tc.args); got != tc.want {
			t.Errorf("forwardedName(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestStubsAreTheFullCommands: turnback lists turnback-full's own
// commands under their names and summaries, and nothing else.
func TestStubsAreTheFullCommands(t *testing.T) {
	g := &globals{stdout: new(bytes.Buffer), stderr: new(bytes.Buffer), getenv: func(string) string { return "" }}
	real := map[string]string{}
	for _, c := range full.Commands(g.host()) {
		real[c.Name()] = c.Short
	}
	var stubNames []string
	for _, c := range stubs(g) {
		stubNames = append(stubNames, c.Name())
		if c.Short != real[c.Name()] {
			t.Errorf("%s: turnback lists %q, turnback-full says %q", c.Name(), c.Short, real[c.Name()])
		}
	}
	slices.Sort(stubNames)
	var names []string
	for n := range real {
		names = append(names, n)
	}
	slices.Sort(names)
	if !slices.Equal(stubNames, names) || len(names) != len(extra.Short) {
		t.Errorf("turnback lists %q, turnback-full has %q", stubNames, names)
	}
}
