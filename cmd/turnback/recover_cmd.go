package main

import (
	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

func newRecoverCmd(g *globals) *cobra.Command {
	var rollback bool
	cmd := &cobra.Command{
		Use:   "recover [--rollback]",
		Short: "Finish, or roll back, an undo/redo/restore that stopped part way",
		Long:  help("recover"),
		Example: `  turnback status              # "... is not finished: b: operation not permitted"
  chattr -i b; turnback recover # finish it once the cause is fixed
  turnback recover --rollback   # or put back the state before it`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withRepo(cmd, turnback.AccessWrite, func(repo *turnback.Repo) error {
				g.installHook(repo)
				res, err := repo.Recover(cmd.Context(), rollback)
				if err != nil {
					return err
				}
				if g.json {
					doc := map[string]any{"found": res.Found, "rolled_back": res.RolledBack && res.Found,
						"restored": termout.NonNil(res.Restored), "deleted": termout.NonNil(res.Deleted), "created": termout.NonNil(res.Created)}
					kept, reasons := []string{}, map[string]string{}
					for _, k := range res.Kept {
						kept = append(kept, k.Path)
						reasons[k.Path] = k.Reason
					}
					doc["not_restorable"], doc["reasons"] = kept, reasons
					termout.WriteJSON(g.stdout, doc)
					return nil
				}
				termout.Recover(g.stdout, res)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&rollback, "rollback", false, "put back the state before the interrupted operation instead of finishing it")
	return cmd
}
