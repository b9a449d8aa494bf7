package cli

import (
	"io"
	"testing"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback/cmd/turnback/help"
)

// TestHelpTexts: every command has its long help, and every help file
// (long help or examples) belongs to a command.
func TestHelpTexts(t *testing.T) {
	root := newRootCmd(&globals{stdout: io.Discard, stderr: io.Discard})
	help.Fill(root) // as showing help does
	used := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		name := c.Name()
		if c == root {
			name = "turnback"
		}
		short := map[string]bool{"help": true, "completion": true, "version": true} // cobra's, and version: no long help
		if c.Long == "" && !short[name] && !(c.Parent() != nil && c.Parent().Name() == "completion") {
			t.Errorf("%s: no long help (help/%s.txt)", c.CommandPath(), name)
		}
		if c.Long != "" && c.Long == help.Long(name) {
			used[name+".txt"] = true
		}
		if c.Example != "" && c.Example == help.Example(name) {
			used[name+".example.txt"] = true
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	files, err := help.Files()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !used[f.Name()] {
			t.Errorf("help/%s: no command uses it", f.Name())
		}
	}
}
