package main

import (
	"bytes"
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
	for _, p := range paths {
		for _, flag := range []string{"--help", "-h"} {
			args := append(append([]string(nil), p...), flag)
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), args, &stdout, &stderr)
			name := "turnback " + strings.Join(args, " ")
			if code != 0 || stderr.Len() != 0 {
				t.Errorf("%s: exit %d, stderr %q", name, code, stderr.String())
			}
			out := stdout.String()
			if !strings.Contains(out, "\nUsage:\n  turnback") || !strings.Contains(out, "\nExamples:\n  ") {
				t.Errorf("%s: no Usage or Examples section:\n%s", name, out)
			}
		}
	}
}
