package cli

import (
	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/diag"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

func newRecoverCmd(g *globals) *cobra.Command {
	var rollback bool
	cmd := &cobra.Command{
		Use:   "recover [--rollback]",
		Short: "Finish, or roll back, an undo/redo/restore that stopped part way",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// No session is picked: looking one up would finish the
			// interrupted operation before it could be rolled back, and
			// the operation's records name their own sessions.
			repo, err := g.openRepo(cmd, turnback.AccessWrite)
			if err != nil {
				return err
			}
			defer repo.Close()
			diag.InstallFaults(repo, g.getenv, g.stderr)
			res, err := repo.Recover(cmd.Context(), rollback)
			if err != nil {
				return err
			}
			return g.print(termout.RecoverDoc(res), func() { termout.RecoverColor(g.stdout, res, g.useColor()) })
		},
	}
	cmd.Flags().BoolVar(&rollback, "rollback", false, "put back the state before the interrupted operation instead of finishing it")
	return cmd
}
