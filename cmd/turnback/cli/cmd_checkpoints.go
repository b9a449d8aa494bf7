package cli

import (
	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

func newCheckpointsCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "checkpoints",
		Short: "List the checkpoints undo, redo and restore made, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			repo, err := g.openRepo(cmd, turnback.AccessRead) // every session's: none is picked
			if err != nil {
				return err
			}
			defer repo.Close()
			ctx := cmd.Context()
			list, err := repo.Checkpoints(ctx)
			if err != nil {
				return err
			}
			sessions, err := repo.Sessions(ctx)
			if err != nil {
				return err
			}
			return g.print(termout.CheckpointsDoc(list), func() { termout.CheckpointsColor(g.stdout, list, sessions, g.location(), g.useColor()) })
		},
	}
}
