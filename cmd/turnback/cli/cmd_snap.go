package cli

import (
	"cmp"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/remote/bgpush"
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
			session := ""
			err := g.runCapture(cmd, func(repo *turnback.Repo) (*turnback.SnapResult, error) {
				res, err := repo.End(cmd.Context())
				if err == nil {
					session = res.Session
				}
				return res, err
			}, termout.Ended)
			if err == nil {
				g.backgroundPush(session, g.errTTY)
			}
			return err
		},
	}
}

// backgroundPush starts a push of session (or the one named) after an end
// (TURNBACK_REMOTE_PUSH=1), from the client, which has the AWS_* variables.
func (g *globals) backgroundPush(session string, tell bool) {
	if wt, sd, named, err := g.locate(); err == nil {
		bgpush.StartBackgroundPush(bgpush.Background{Getenv: g.getenv, WorkTree: wt, Store: sd, Session: cmp.Or(session, named), Stderr: g.stderr, Tell: tell})
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
		if p := res.PullEnded; p != nil {
			op := "started"
			if res.Closed != nil && res.Closed.ClosedBy == "end" {
				op = "ended"
			}
			fmt.Fprintln(g.stderr, termout.PullEnded(p, res.Turn, op, g.cliStart()))
		}
		return g.print(termout.SnapDoc(res), func() { print(g.stdout, g.stderr, res) })
	})
}
