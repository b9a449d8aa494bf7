package main

import (
	"embed"
	"strings"

	"github.com/spf13/cobra"
)

// The long help of every command and its examples are text files in
// help/, named after the command (turnback.txt for the root) and kept
// as documentation to read and review as such: <command>.txt is the
// long help, <command>.example.txt the examples.
//
//go:embed help/*.txt
var helpFiles embed.FS

// help returns the long help of the command name.
func help(name string) string { return helpFile(name + ".txt") }

// example returns the examples of the command name.
func example(name string) string { return helpFile(name + ".example.txt") }

// helpFile returns the help file name without its final newline (""
// if there is none: TestHelpTexts checks there is).
func helpFile(name string) string {
	data, err := helpFiles.ReadFile("help/" + name)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

// fillHelp gives c and every command below it the long help and the
// examples help/ has for it.
func fillHelp(c *cobra.Command) {
	if text := help(c.Name()); text != "" {
		c.Long = text
	}
	if text := example(c.Name()); text != "" {
		c.Example = text
	}
	for _, sub := range c.Commands() {
		fillHelp(sub)
	}
}
