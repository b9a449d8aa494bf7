package cli

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every command, including ones added later, answers --help with exit 0,
// its usage on stdout, an Examples section, and nothing on stderr.
func TestHelpEveryCommand(t *testing.T) {
	t.Parallel()
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == cobra.ShellCompRequestCmd || sub.Name() == cobra.ShellCompNoDescRequestCmd {
				continue
			}
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	walk(newRootCmd(&globals{}), nil)
	if len(paths) < 8 {
		t.Fatalf("found only the commands %q", paths)
	}
	// In-process: a help text needs no store, daemon or environment.
	e := newCLI(t, "work")
	e.inProcess = true
	for _, p := range paths {
		for _, flag := range []string{"--help", "-h"} {
			args := append(append([]string(nil), p...), flag)
			r := e.exec("", nil, args...)
			name := "turnback " + strings.Join(args, " ")
			if r.code != 0 || r.stderr != "" {
				t.Errorf("%s: exit %d, stderr %q", name, r.code, r.stderr)
			}
			out := r.stdout
			if !strings.Contains(out, "\nUsage:\n  turnback") || !strings.Contains(out, "\nExamples:\n  ") {
				t.Errorf("%s: no Usage or Examples section:\n%s", name, out)
			}
		}
	}
}
