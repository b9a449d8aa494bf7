package cli

// turnback leaves out the commands whose libraries are large (the S3
// remote, the MCP server, the terminal UI): they would add about 6 ms
// to every start, and hooks start turnback many times a turn. It hands
// those commands, as they were given, to turnback-full beside it
// (internal/fullbin). It hands watch too when turnback-full is there, so
// that the daemon can serve a push or pull.

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback/cmd/turnback/extra"
	"github.com/turnback/turnback/cmd/turnback/termout"
	"github.com/turnback/turnback/internal/fullbin"
)

// valueFlags are the global flags that take a value in the next
// argument; boolFlags those that take none.
var (
	valueFlags = map[string]bool{"-C": true, "--dir": true, "--store": true, "--session": true, "--agent": true}
	boolFlags  = map[string]bool{"--json": true, "--force": true, "-h": true, "--help": true}
)

// forwardedName returns the command args run when turnback-full has it
// and turnback does not (help NAME counts as NAME), or watch; else "".
func forwardedName(args []string) string {
	help := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return ""
		case valueFlags[a]:
			i++
		case strings.HasPrefix(a, "-"):
			name, _, _ := strings.Cut(a, "=")
			if !valueFlags[name] && !boolFlags[name] && !(strings.HasPrefix(a, "-C") && len(a) > 2) {
				return "" // a mistake cobra reports
			}
		case a == "help" && !help:
			help = true
		default:
			if _, ok := extra.Short[a]; ok || a == "watch" {
				return a
			}
			return ""
		}
	}
	return ""
}

// forward runs args in turnback-full when they are its command: done is
// false when turnback runs them itself. It returns only when
// turnback-full could not be started, or on Windows once it exited.
func forward(args []string, stderr io.Writer) (code int, done bool) {
	name := forwardedName(args)
	if name == "" {
		return 0, false
	}
	full, err := fullbin.Path()
	if err != nil {
		if name == "watch" {
			return 0, false // this daemon serves no push or pull
		}
		fmt.Fprintf(stderr, "turnback: %s is a command of turnback-full: %s\n", name, termout.SafeText(err.Error()))
		return exitError, true
	}
	code, err = execFull(full, args)
	if err != nil {
		fmt.Fprintf(stderr, "turnback: %s: run %s: %s\n", name, termout.SafeText(full), termout.SafeText(err.Error()))
		return exitError, true
	}
	return code, true
}

// stubs are turnback's entries for turnback-full's own commands: they
// list them in the help. A run of turnback hands them over before any
// of them runs (forward); run in a process, they say where they are.
func stubs(g *globals) []*cobra.Command {
	var cmds []*cobra.Command
	for name, short := range extra.Short {
		cmds = append(cmds, &cobra.Command{
			Use: name, Short: short, DisableFlagParsing: true,
			RunE: func(cmd *cobra.Command, args []string) error {
				where := "it is not installed"
				if p, err := fullbin.Path(); err == nil {
					where = "run " + p
				} else if me := new(fullbin.MissingError); errors.As(err, &me) {
					where = me.Error()
				}
				return fmt.Errorf("turnback: %s is a command of turnback-full: %s", name, where)
			},
		})
	}
	return cmds
}

// host is what g gives turnback-full's own commands.
func (g *globals) host() *extra.Host {
	return &extra.Host{Stdin: g.stdin, Stdout: g.stdout, Stderr: g.stderr, ErrTTY: g.errTTY, JSON: &g.json,
		Getenv: g.getenv, Cwd: g.cwd,
		Dir:          func() string { return g.dir },
		Store:        func() string { return g.store },
		Session:      func() string { return g.session },
		StoreOrEnv:   func() string { return cmp.Or(g.store, g.getenv("TURNBACK_STORE")) },
		SessionOrEnv: func() string { return cmp.Or(g.session, g.getenv("TURNBACK_SESSION")) },
		Force:        func() bool { return g.force },
		Version:      versionString(),
		Getwd:        g.getwd, Locate: g.locate, WithRepo: g.withRepo,
		Usage:     func(err error) error { return usageError{err} },
		Ambiguous: g.ambiguous, Color: g.useColor, ColorErr: g.useColorErr, Exit: remoteExit}
}
