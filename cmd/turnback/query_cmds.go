package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

func newStatusCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:     "status",
		Short:   "List what changed since the session's last snapshot",
		Long:    help("status"),
		Example: example("status"),
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
				g.noteCapture(st.Stats.Files, st.Stats.Dirs)
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

func newLogCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:     "log",
		Short:   "List the session's turns, newest first",
		Long:    help("log"),
		Example: example("log"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withRepo(cmd, turnback.AccessRead, func(repo *turnback.Repo) error {
				turns, redo, err := repo.Turns(cmd.Context())
				if err != nil {
					return err
				}
				lost, err := repo.UnprotectedChanges(cmd.Context(), append(append([]*turnback.Turn{}, turns...), redo...))
				if err != nil {
					return err
				}
				if g.json {
					termout.WriteJSON(g.stdout, termout.LogDoc(repo.Session(), turns, redo, lost))
					return nil
				}
				termout.Log(g.stdout, repo.Session(), turns, redo, lost, g.location())
				return nil
			})
		},
	}
}

func newShowCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:     "show ID",
		Short:   "Describe a snapshot and list its paths",
		Long:    help("show"),
		Example: example("show"),
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withRepo(cmd, turnback.AccessRead, func(repo *turnback.Repo) error {
				info, err := repo.Show(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				if g.json {
					termout.WriteJSON(g.stdout, termout.ShowDoc(info))
					return nil
				}
				termout.Show(g.stdout, info)
				return nil
			})
		},
	}
}

func newDiffCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:     "diff [A [B]]",
		Short:   "Show a unified diff between snapshots or the folder now",
		Long:    help("diff"),
		Example: example("diff"),
		Args:    cobra.MaximumNArgs(2),
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

func newVerifyCmd(g *globals) *cobra.Command {
	var repair bool
	c := &cobra.Command{
		Use:     "verify [--repair]",
		Short:   "Re-read and re-hash everything the store holds",
		Long:    help("verify"),
		Example: example("verify"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if repair {
				return g.runRepair(cmd)
			}
			return g.withRepo(cmd, turnback.AccessRead, func(repo *turnback.Repo) error {
				res, err := repo.Verify(cmd.Context())
				if err != nil && !errors.Is(err, turnback.ErrVerify) {
					return err
				}
				if g.json && err == nil {
					termout.WriteJSON(g.stdout, termout.VerifyDoc(res))
					return nil
				}
				termout.VerifyProblems(g.stderr, res)
				if err != nil {
					return codedError{code: exitError, err: verifyFailure{res: res, err: err}}
				}
				termout.Verified(g.stdout, res)
				return nil
			})
		},
	}
	c.Flags().BoolVar(&repair, "repair", false, "rebuild a store whose database metadata is missing or damaged (nothing is deleted), then verify")
	return c
}

type verifyFailure struct {
	res *turnback.VerifyResult
	err error
}

func (v verifyFailure) Error() string { return v.err.Error() }
func (v verifyFailure) jsonDoc() map[string]any {
	return termout.VerifyFailureDoc(v.res)
}
