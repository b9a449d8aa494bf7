package help

import (
	"embed"
	"io/fs"
	"strings"
	"sync"

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
// examples this package has for it, except to a command that already
// has a long help: remote's commands bring their own texts, and
// "remote show" must not get those of show.
func Fill(c *cobra.Command) {
	if c.Long == "" {
		if text := Long(c.Name()); text != "" {
			c.Long = text
		}
		if text := Example(c.Name()); text != "" {
			c.Example = text
		}
	}
	for _, sub := range c.Commands() {
		Fill(sub)
	}
}

// Finish readies the command tree rooted at root: cobra's help and
// completion commands with their examples, argument-count errors of
// every command turned into usage errors by usage, and the long help
// and examples (Fill) filled in when help or usage is first shown.
// Reading them all costs every process, hook or command, 0.1 ms, and
// few ever show them.
func Finish(root *cobra.Command, usage func(error) error) {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		switch c.Name() {
		case "help":
			c.Example = "  turnback help snap"
		case "completion":
			c.Example = "  source <(turnback completion bash)\n  turnback completion zsh > \"${fpath[1]}/_turnback\""
			for _, sub := range c.Commands() {
				sub.Example = "  turnback completion " + sub.Name()
			}
		}
	}
	wrapAllArgs(root, usage)
	fill := sync.OnceFunc(func() { Fill(root) })
	helpFunc, usageFunc := root.HelpFunc(), root.UsageFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		fill()
		helpFunc(c, args)
	})
	root.SetUsageFunc(func(c *cobra.Command) error {
		fill()
		return usageFunc(c)
	})
}

// wrapAllArgs makes argument-count errors of c and every command below it
// usage errors.
func wrapAllArgs(c *cobra.Command, usage func(error) error) {
	if c.Name() != "help" { // help takes any command path
		c.Args = wrapArgs(c.Args, usage)
	}
	for _, sub := range c.Commands() {
		wrapAllArgs(sub, usage)
	}
}

// wrapArgs turns argument-count errors into usage errors.
func wrapArgs(v cobra.PositionalArgs, usage func(error) error) cobra.PositionalArgs {
	if v == nil {
		v = cobra.NoArgs
	}
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return usage(err)
		}
		return nil
	}
}
