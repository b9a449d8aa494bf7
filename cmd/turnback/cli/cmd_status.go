package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

func newStatusCmd(g *globals) *cobra.Command {
	var ignored bool
	cmd := &cobra.Command{
		Use:   "status [--ignored]",
		Short: "List what changed since the session's last snapshot",
		RunE: func(cmd *cobra.Command, args []string) error {
			var full bool
			status := func(repo *turnback.Repo) error {
				st, err := repo.StatusWith(cmd.Context(), turnback.StatusOptions{Ignored: ignored})
				g.endProgress()
				if full = errors.Is(err, turnback.ErrNoSpace) && !repo.ReadOnly() && !repo.Served(); err != nil {
					return err
				}
				g.local.Note(st.Stats.Files, st.Stats.Dirs)
				return g.print(termout.StatusDoc(st, repo.Session()), func() { termout.Status(g.stdout, st, repo.Session(), g.useColor()) })
			}
			err := g.withRepo(cmd, turnback.AccessReadPreferWrite, status)
			if full {
				// The disk filled during the capture: compare without
				// keeping anything instead.
				err = g.withRepo(cmd, turnback.AccessRead, status)
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&ignored, "ignored", false, "also list what is skipped (never captured, never touched) and why")
	return cmd
}

func newDiffCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "diff [@N | A [B]]",
		Short: "Show a unified diff between snapshots or the folder now",
		Args:  cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var a, b string
			if len(args) > 0 {
				a = args[0]
			}
			if len(args) > 1 {
				b = args[1]
			}
			return g.withRepo(cmd, turnback.AccessRead, func(repo *turnback.Repo) error {
				if ref, ok, err := turnback.ParseTurnRef(a); err != nil {
					return err
				} else if ok && !ref.Before && b == "" { // a turn: its diff
					tc, err := repo.DiffTurn(cmd.Context(), ref.N)
					if err != nil {
						return err
					}
					return g.print(termout.TurnDiffDoc(tc, repo.Session()), func() { termout.Diff(g.stdout, termout.TurnDiff(tc), g.useColor()) })
				}
				d, err := repo.Compare(cmd.Context(), a, b)
				g.endProgress()
				if err != nil {
					return err
				}
				return g.print(termout.DiffDoc(d), func() { termout.Diff(g.stdout, d, g.useColor()) })
			})
		},
	}
}
