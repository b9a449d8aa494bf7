package full

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/envopt"
	"github.com/turnback/turnback/cmd/turnback/extra"
	"github.com/turnback/turnback/cmd/turnback/mcp"
	"github.com/turnback/turnback/cmd/turnback/remote"
	"github.com/turnback/turnback/cmd/turnback/termout"
	"github.com/turnback/turnback/cmd/turnback/ui"
)

// Commands returns turnback-full's own commands for h.
func Commands(h *extra.Host) []*cobra.Command {
	cmds := []*cobra.Command{mcpCmd(h), uiCmd(h)}
	return append(cmds, remote.Commands(&remote.Env{Stdout: h.Stdout, Stderr: h.Stderr, ErrTTY: h.ErrTTY, JSON: h.JSON,
		Color: h.Color, ColorErr: h.ColorErr, Getenv: h.Getenv, WithRepo: h.WithRepo, Getwd: h.Getwd,
		Usage: h.Usage, Force: h.Force, Exit: h.Exit, Ambiguous: h.Ambiguous,
		Store: h.StoreOrEnv, Session: h.SessionOrEnv})...)
}

func mcpCmd(h *extra.Host) *cobra.Command {
	return mcp.Command(func() mcp.Config {
		return mcp.Config{Cwd: h.Cwd, Dir: h.Dir(), Store: h.Store(), Session: h.Session(), Getenv: h.Getenv, Version: h.Version}
	})
}

func uiCmd(h *extra.Host) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "ui [--all]",
		Short: extra.Short["ui"],
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			in, _ := h.Stdin.(*os.File)
			out, _ := h.Stdout.(*os.File)
			if in == nil || out == nil || !term.IsTerminal(int(in.Fd())) || !term.IsTerminal(int(out.Fd())) {
				return h.Usage(ui.ErrNoTerminal)
			}
			workTree, storeDir, session, err := h.Locate()
			if err != nil {
				return err
			}
			opts := turnback.Options{Store: storeDir, Force: h.Force()}
			if err := envopt.Apply(h.Getenv, &opts); err != nil {
				return h.Usage(err)
			}
			f := &ui.Folder{WorkTree: workTree, Options: opts}
			ctx := cmd.Context()
			picked, ambiguous, err := ui.Pick(ctx, f, session)
			var ae *turnback.AmbiguousSessionError
			if errors.As(err, &ae) {
				return h.Usage(errors.New(termout.AmbiguousSession(ae, envopt.Now(h.Getenv))))
			}
			if err != nil {
				return err
			}
			cfg := ui.Config{Folder: f, Session: picked, All: all || ambiguous, Poll: 500 * time.Millisecond,
				Color: h.Getenv("NO_COLOR") == "" && h.Getenv("TERM") != "dumb",
				Now:   func() time.Time { return envopt.Now(h.Getenv) }}
			if err := ui.Run(ctx, cfg, in, out); err != nil {
				return fmt.Errorf("turnback: ui: %w", err)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "show every session (a toggles it in the UI)")
	return cmd
}
