package main

import (
	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

func newLogCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "log",
		Short: "List the session's turns, newest first",
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
		Use:   "show ID",
		Short: "Describe a snapshot and list its paths",
		Args:  cobra.ExactArgs(1),
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
