package help

import (
	"embed"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"
)

//go:embed *.txt
var files embed.FS

// Long returns the long help of the command name ("turnback" for the
// root).
func Long(name string) string { return file(name + ".txt") }

// Example returns the examples of the command name.
func Example(name string) string { return file(name + ".example.txt") }

// Files lists the help files.
func Files() ([]fs.DirEntry, error) { return files.ReadDir(".") }

// file returns the help file name without its final newline ("" if
// there is none: TestHelpTexts checks there is).
func file(name string) string {
	data, err := files.ReadFile(name)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

// Fill gives c and every command below it the long help and the
// examples this package has for it.
func Fill(c *cobra.Command) {
	if text := Long(c.Name()); text != "" {
		c.Long = text
	}
	if text := Example(c.Name()); text != "" {
		c.Example = text
	}
	for _, sub := range c.Commands() {
		Fill(sub)
	}
}
