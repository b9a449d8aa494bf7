package remote

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
	s3remote "github.com/turnback/turnback/internal/remote"
)

func (e *Env) sessionsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "sessions",
		Short: "List the remote's sessions: agent, turns, last turn, size",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.WithRepo(cmd, turnback.AccessRead, func(repo *turnback.Repo) error {
				cfg, c, err := e.client(cmd, repo)
				if err != nil {
					return err
				}
				list, err := s3remote.Sessions(cmd.Context(), c)
				if err != nil {
					return err
				}
				infos := s3remote.SessionInfos(list)
				heads, bytes := make([]string, len(list)), make([]int64, len(list))
				for i, s := range list {
					heads[i], bytes[i] = s.Head, s.Bytes
				}
				if e.json() {
					termout.WriteJSON(e.Stdout, termout.RemoteSessionsDoc(cfg.URL, infos, heads, bytes))
					return nil
				}
				termout.RemoteSessionsColor(e.Stdout, cfg.URL, infos, bytes, time.Local, e.color())
				return nil
			})
		},
	}
}
