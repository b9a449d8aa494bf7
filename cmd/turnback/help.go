package main

import (
	"embed"
	"strings"
)

// The long help of every command is a text file in help/, named after
// the command (turnback.txt for the root), kept as documentation to
// read and review as such.
//
//go:embed help/*.txt
var helpFiles embed.FS

// help returns the long help of the command name, without the file's
// final newline ("" if there is none: TestHelpTexts checks there is).
func help(name string) string {
	data, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}
