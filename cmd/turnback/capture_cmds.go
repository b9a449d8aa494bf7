package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

func newSnapCmd(g *globals) *cobra.Command {
	var msg string
	cmd := &cobra.Command{
		Use:   "snap [-m MSG]",
		Short: "Capture the folder as the before-state of a new turn",
		Long:  help("snap"),
		Example: `  turnback snap -m "refactor the parser"
  turnback --session agent-2 snap
  turnback --json snap     # {"snapshot": "...", "session": "default", "turn": 3, ...}`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withRepo(cmd, turnback.AccessWrite, func(repo *turnback.Repo) error {
				res, err := repo.Snap(cmd.Context(), msg)
				g.endProgress()
				if err != nil {
					return err
				}
				g.noteCapture(res.Files, res.Stats.Dirs)
				termout.Problems(g.stderr, res)
				if g.json {
					termout.WriteJSON(g.stdout, termout.SnapDoc(res))
					return nil
				}
				fmt.Fprintln(g.stdout, res.Snapshot.Short())
				fmt.Fprintf(g.stderr, "turn %d of session %s started: %d files, %s; read %d files (%s)\n",
					res.Turn, res.Session, res.Files, termout.HumanBytes(res.Bytes), res.Stats.HashedFiles, termout.HumanBytes(res.Stats.HashedBytes))
				return nil
			})
		},
	}
	cmd.Flags().StringVarP(&msg, "message", "m", "", "a note for the turn (the first line is kept)")
	return cmd
}

func newEndCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:     "end",
		Short:   "Capture the after-state of the open turn",
		Long:    help("end"),
		Example: `  turnback snap -m "agent turn"; <the agent works>; turnback end`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withRepo(cmd, turnback.AccessWrite, func(repo *turnback.Repo) error {
				res, err := repo.End(cmd.Context())
				g.endProgress()
				if err != nil {
					return err
				}
				g.noteCapture(res.Files, res.Stats.Dirs)
				termout.Problems(g.stderr, res)
				if g.json {
					termout.WriteJSON(g.stdout, termout.SnapDoc(res))
					return nil
				}
				switch {
				case res.NoOpenTurn:
					fmt.Fprintln(g.stdout, termout.NoOpenTurn(res.Session))
				case res.Dropped:
					fmt.Fprintln(g.stdout, res.Snapshot.Short())
					fmt.Fprintln(g.stderr, termout.Dropped(res.Turn))
				default:
					fmt.Fprintln(g.stdout, res.Snapshot.Short())
					c := res.Closed
					fmt.Fprintf(g.stderr, "turn %d ended: +%d ~%d -%d\n", res.Turn, c.Added, c.Modified, c.Deleted)
				}
				return nil
			})
		},
	}
}
