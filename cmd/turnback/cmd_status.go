package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

func newStatusCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "List what changed since the session's last snapshot",
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withRepo(cmd, turnback.AccessReadPreferWrite, func(repo *turnback.Repo) error {
				st, err := repo.Status(cmd.Context())
				if errors.Is(err, turnback.ErrNoSpace) && !repo.ReadOnly() && g.served == nil {
					// The disk filled during the capture: compare without
					// keeping anything instead.
					repo.Close()
					if repo, err = g.openRepo(cmd, turnback.AccessRead); err != nil {
						return err
					}
					defer repo.Close()
					st, err = repo.Status(cmd.Context())
				}
				g.endProgress()
				if err != nil {
					return err
				}
				g.local.Note(st.Stats.Files, st.Stats.Dirs)
				if g.json {
					termout.WriteJSON(g.stdout, termout.StatusDoc(st, repo.Session()))
					return nil
				}
				termout.Status(g.stdout, st, repo.Session(), g.useColor())
				return nil
			})
		},
	}
}

func newDiffCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "diff [A [B]]",
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
				from, to, diffs, err := repo.Diff(cmd.Context(), a, b)
				g.endProgress()
				if err != nil {
					return err
				}
				if g.json {
					termout.WriteJSON(g.stdout, termout.DiffDoc(from, to, diffs))
					return nil
				}
				termout.Diff(g.stdout, diffs, g.useColor())
				return nil
			})
		},
	}
}
