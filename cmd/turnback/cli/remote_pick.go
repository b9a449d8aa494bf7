package cli

import "github.com/spf13/cobra"

// The remote's commands find their session as every other command does
// (pickSession): push and pull given no session work on the session of
// the folder's newest turn, with the "using session" note. Pull then
// also looks at the remote's sessions (package remote).

// remoteTurns: cmd is a push of one session or a pull.
func remoteTurns(cmd *cobra.Command) bool {
	switch cmd.Name() {
	case "push":
		return !flagSet(cmd, "all")
	case "pull":
		return true
	}
	return false
}

// remoteReads: cmd is a push or pull that leaves the folder as it is,
// so another session working right now is no reason to refuse.
func remoteReads(cmd *cobra.Command) bool {
	return remoteTurns(cmd) && !flagSet(cmd, "apply")
}

// flagSet reports whether cmd's boolean flag name is true.
func flagSet(cmd *cobra.Command, name string) bool {
	f := cmd.Flags().Lookup(name)
	return f != nil && f.Value.String() == "true"
}

// remoteExit is remote.Env.Exit: err with code, its --json document
// carrying doc, or, without doc, said already.
func remoteExit(code int, err error, doc map[string]any) error {
	if doc == nil {
		return codedError{code, reported{err}}
	}
	return codedError{code, docError{err, doc}}
}
