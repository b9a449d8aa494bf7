package termout

import (
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/term"
)

// WantsJSON reports whether args ask for --json, for errors raised before
// the flags were parsed (an unknown command or flag).
func WantsJSON(args []string) bool {
	for _, a := range args {
		switch {
		case a == "--":
			return false
		case a == "--json":
			return true
		case strings.HasPrefix(a, "--json="):
			v, err := strconv.ParseBool(strings.TrimPrefix(a, "--json="))
			return err == nil && v
		}
	}
	return false
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
