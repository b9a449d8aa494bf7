package extra

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
)

// Host is what the CLI gives the commands of turnback-full: its streams,
// flags and environment, and the helpers every command uses.
type Host struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	ErrTTY         bool
	JSON           *bool
	Getenv         func(string) string
	// Cwd is the folder the command runs in ("" means the process's).
	Cwd string
	// Dir, Store and Session are -C, --store and --session as given.
	Dir, Store, Session func() string
	// StoreOrEnv and SessionOrEnv add $TURNBACK_STORE and
	// $TURNBACK_SESSION.
	StoreOrEnv, SessionOrEnv func() string
	Force                    func() bool
	Version                  string
	// Getwd is the folder the command runs in.
	Getwd func() (string, error)
	// Locate finds the command's work tree, store and session name.
	Locate func() (workTree, storeDir, session string, err error)
	// WithRepo opens the command's store and runs fn with it.
	WithRepo func(cmd *cobra.Command, access turnback.Access, fn func(*turnback.Repo) error) error
	// Usage marks err as a usage error (exit 2).
	Usage func(err error) error
	// Ambiguous makes an ambiguous session name exit 2, listing the
	// sessions; other errors stay as they are.
	Ambiguous func(err error) error
	// Color and ColorErr: stdout and stderr take colour.
	Color, ColorErr func() bool
	// Exit gives err the exit code code; with doc, --json's error
	// document carries it; without, err was already said.
	Exit func(code int, err error, doc map[string]any) error
}

// Commands makes turnback-full's own commands for h.
type Commands func(h *Host) []*cobra.Command

// Short is each top-level command of turnback-full's own, with the
// summary the command list shows (a test keeps them the commands' own).
var Short = map[string]string{
	"mcp":    "Serve turnback's tools to an agent over MCP (stdio)",
	"ui":     "Browse sessions, turns and diffs full-screen; undo, redo, restore",
	"remote": "Set, show, list, verify and collect the store's S3 remote",
	"push":   "Upload the session's turns and what they reach that the remote lacks",
	"pull":   "Bring the remote's newest turns of the session into the store (--apply: and into the folder)",
	"clone":  "Make an empty folder a copy of a remote session, with its turns",
}
