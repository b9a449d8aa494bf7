package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

func newSnapCmd(g *globals) *cobra.Command {
	var msg string
	var meta []string
	var take bool // the agent hook's, through a watch daemon (--json: the notice in "notice")
	cmd := &cobra.Command{
		Use:   "snap [-m MSG] [--meta KEY=VALUE]...",
		Short: "Capture the folder as the before-state of a new turn",
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := turnback.ParseMeta(meta)
			if err != nil {
				return usageError{err}
			}
			return g.runCapture(cmd, func(repo *turnback.Repo) (*turnback.SnapResult, error) {
				return repo.SnapWith(cmd.Context(), turnback.SnapOptions{Message: msg, Meta: m, TakeNotice: take})
			}, termout.Snapped)
		},
	}
	cmd.Flags().StringVarP(&msg, "message", "m", "", "a note for the turn (the first line is kept)")
	cmd.Flags().StringArrayVar(&meta, "meta", nil, "a `KEY=VALUE` pair stored with the turn, returned by log, show and the API (repeatable; at most 64 pairs, 4 KiB)")
	cmd.Flags().BoolVar(&take, "take-notice", false, "")
	cmd.Flags().Lookup("take-notice").Hidden = true
	return cmd
}

func newEndCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "end",
		Short: "Capture the after-state of the open turn",
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.runCapture(cmd, func(repo *turnback.Repo) (*turnback.SnapResult, error) {
				return repo.End(cmd.Context())
			}, termout.Ended)
		},
	}
}

// runCapture is snap and end: it takes the capture, warns about what it
// could not capture, and prints the result (human: with print).
func (g *globals) runCapture(cmd *cobra.Command, capture func(*turnback.Repo) (*turnback.SnapResult, error),
	print func(stdout, stderr io.Writer, res *turnback.SnapResult)) error {
	return g.withRepo(cmd, turnback.AccessWrite, func(repo *turnback.Repo) error {
		res, err := capture(repo)
		g.endProgress()
		if err != nil {
			return err
		}
		g.local.Note(res.Files, res.Stats.Dirs)
		termout.Problems(g.stderr, res)
		return g.print(termout.SnapDoc(res), func() { print(g.stdout, g.stderr, res) })
	})
}
