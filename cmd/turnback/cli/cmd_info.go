package cli

import (
	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
	daemons "github.com/turnback/turnback/internal/daemon"
	"github.com/turnback/turnback/watch/daemon"
)

func newInfoCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "info",
		Short: "Show the store's location, size and contents",
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withRepo(cmd, turnback.AccessRead, func(repo *turnback.Repo) error {
				in, err := repo.Info(cmd.Context())
				if err != nil {
					return err
				}
				var dmn *daemon.Info
				if repo.Served() {
					dmn, _ = daemon.Ping(repo.StoreDir())
				}
				return g.print(termout.InfoDoc(in, dmn), func() {
					termout.Info(g.stdout, in, dmn, g.location(), daemons.Note(g.getenv, in.Store))
				})
			})
		},
	}
}
