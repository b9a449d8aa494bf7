package cli

import (
	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

func newSessionsCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "sessions",
		Short: "List the folder's sessions, most recently active first",
		RunE: func(cmd *cobra.Command, args []string) error {
			repo, err := g.openRepo(cmd, turnback.AccessRead) // every session: none is picked
			if err != nil {
				return err
			}
			defer repo.Close()
			list, err := repo.Sessions(cmd.Context())
			if err != nil {
				return err
			}
			return g.print(termout.SessionsDoc(list), func() { termout.SessionsColor(g.stdout, list, g.location(), g.useColor()) })
		},
	}
}
