package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

func newLogCmd(g *globals) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "log [--all]",
		Short: "List the session's turns, newest first (given no session: every recent one)",
		RunE: func(cmd *cobra.Command, args []string) error {
			if all {
				return g.logAll(cmd)
			}
			return g.withRepo(cmd, turnback.AccessRead, func(repo *turnback.Repo) error {
				ctx := cmd.Context()
				turns, redo, err := repo.Turns(ctx)
				if err != nil {
					return err
				}
				lost, err := repo.UnprotectedChanges(ctx, append(append([]*turnback.Turn{}, turns...), redo...))
				if err != nil {
					return err
				}
				list, err := repo.Sessions(ctx)
				if err != nil {
					return err
				}
				s := termout.SessionOf(list, repo.Session())
				if !g.json {
					if done, err := g.recentLog(ctx, repo, list, s); done || err != nil {
						return err // every recent session, newest first (log_recent.go)
					}
				}
				err = g.print(termout.LogDoc(s, turns, redo, lost), func() { termout.LogColor(g.stdout, s, turns, redo, lost, g.location(), g.useColor()) })
				if len(turns)+len(redo) == 0 {
					g.movedHint(repo, list)
				}
				return err
			})
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "every session's turns, newest first, with a session column")
	return cmd
}

// logAll is "turnback log --all": every session, so no session is
// picked.
func (g *globals) logAll(cmd *cobra.Command) error {
	repo, err := g.openRepo(cmd, turnback.AccessRead)
	if err != nil {
		return err
	}
	defer repo.Close()
	all, err := repo.AllTurns(cmd.Context())
	if err != nil {
		return err
	}
	lost := map[string]map[int][]string{}
	for _, s := range all {
		if lost[s.Name], err = repo.UnprotectedChanges(cmd.Context(), append(append([]*turnback.Turn{}, s.Turns...), s.Redo...)); err != nil {
			return err
		}
	}
	return g.print(termout.LogAllDoc(all, lost), func() { termout.LogAllColor(g.stdout, all, lost, g.location(), g.useColor()) })
}

func newShowCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "show [ID|@N]",
		Short: "Describe a snapshot, or what a turn changed (default: the newest turn)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withRepo(cmd, turnback.AccessRead, func(repo *turnback.Repo) error {
				if len(args) == 0 { // the newest turn, as git show shows HEAD
					n, err := newestClosedTurn(cmd.Context(), repo)
					if n == 0 || err != nil {
						return err
					}
					args = []string{fmt.Sprintf("@%d", n)}
				}
				if ref, ok, err := turnback.ParseTurnRef(args[0]); err != nil {
					return err
				} else if ok && !ref.Before { // a turn: what it changed
					tc, err := repo.ShowTurn(cmd.Context(), ref.N)
					if err != nil {
						return err
					}
					return g.print(termout.TurnShowDoc(tc, repo.Session()), func() { termout.ShowTurnColor(g.stdout, tc, repo.Session(), g.location(), g.useColor()) })
				}
				info, err := repo.Show(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				return g.print(termout.ShowDoc(info), func() { termout.Show(g.stdout, info) })
			})
		},
	}
}

// newestClosedTurn is the number of the session's newest closed turn on
// its undo stack, what show with no argument shows; 0 after saying so
// when it has none.
func newestClosedTurn(ctx context.Context, repo *turnback.Repo) (int, error) {
	turns, _, err := repo.Turns(ctx)
	if err != nil {
		return 0, err
	}
	for _, t := range turns { // newest first
		if !t.Open() {
			return t.N, nil
		}
	}
	if len(turns) == 0 {
		return 0, fmt.Errorf("turnback: no turn to show in session %s", termout.QuotePath(repo.Session()))
	}
	return 0, fmt.Errorf("turnback: no closed turn to show in session %s (status shows what the open turn changed so far)", termout.QuotePath(repo.Session()))
}
