package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/envopt"
	"github.com/turnback/turnback/cmd/turnback/termout"
	"github.com/turnback/turnback/cmd/turnback/ui"
)

func newUICmd(g *globals) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "ui [--all]",
		Short: "Browse sessions, turns and diffs full-screen; undo, redo, restore",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			in, _ := g.stdin.(*os.File)
			out, _ := g.stdout.(*os.File)
			if in == nil || out == nil || !term.IsTerminal(int(in.Fd())) || !term.IsTerminal(int(out.Fd())) {
				return usageError{ui.ErrNoTerminal}
			}
			workTree, storeDir, session, err := g.locate()
			if err != nil {
				return err
			}
			opts := turnback.Options{Store: storeDir, Force: g.force}
			if err := envopt.Apply(g.getenv, &opts); err != nil {
				return usageError{err}
			}
			f := &ui.Folder{WorkTree: workTree, Options: opts}
			ctx := cmd.Context()
			picked, ambiguous, err := ui.Pick(ctx, f, session)
			var ae *turnback.AmbiguousSessionError
			if errors.As(err, &ae) {
				return usageError{errors.New(termout.AmbiguousSession(ae, envopt.Now(g.getenv)))}
			}
			if err != nil {
				return err
			}
			cfg := ui.Config{Folder: f, Session: picked, All: all || ambiguous, Poll: 500 * time.Millisecond,
				Color: g.getenv("NO_COLOR") == "" && g.getenv("TERM") != "dumb",
				Now:   func() time.Time { return envopt.Now(g.getenv) }}
			if err := ui.Run(ctx, cfg, in, out); err != nil {
				return fmt.Errorf("turnback: ui: %w", err)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "show every session (a toggles it in the UI)")
	return cmd
}
