package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

// snapJSON is the --json document of snap and end.
type snapJSON struct {
	Snapshot string `json:"snapshot"`
	Session  string `json:"session"`
	Turn     int    `json:"turn"`
	Files    int64  `json:"files"`
	Bytes    int64  `json:"bytes"`
	Stats    any    `json:"stats,omitempty"`
	Message  string `json:"message,omitempty"`
}

func snapDoc(res *turnback.SnapResult) snapJSON {
	d := snapJSON{Session: res.Session, Turn: res.Turn, Files: res.Files, Bytes: res.Bytes}
	if !res.Snapshot.IsZero() {
		d.Snapshot = res.Snapshot.String()
		d.Stats = statsDoc(res.Stats, res.Watch)
	}
	switch {
	case res.NoOpenTurn:
		d.Message = noOpenTurnMessage(res.Session)
	case res.Dropped && res.Closed != nil && res.Closed.ClosedBy == "end":
		d.Message = droppedMessage(res.Turn)
	}
	return d
}

// statsDoc is the "stats" member of snap, end and status: the walker's
// counters, plus "watch" when the watch daemon made the capture.
func statsDoc(s turnback.Stats, w *turnback.WatchInfo) any {
	if w == nil {
		return s
	}
	return struct {
		turnback.Stats
		Watch *turnback.WatchInfo `json:"watch"`
	}{s, w}
}

func newSnapCmd(g *globals) *cobra.Command {
	var msg string
	cmd := &cobra.Command{
		Use:   "snap [-m MSG]",
		Short: "Capture the folder as the before-state of a new turn",
		Long: `snap captures the folder as the before-state of a new turn and prints the
snapshot id. The session's open turn, if any, is closed at the same state
(and dropped if it changed nothing), and the redo stack is cleared.

Only files whose size, times, inode or mode changed since the last capture
are read again, so a snap costs what changed.`,
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
				g.reportProblems(res)
				if g.json {
					termout.WriteJSON(g.stdout, snapDoc(res))
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
		Use:   "end",
		Short: "Capture the after-state of the open turn",
		Long: `end captures the folder as the after-state of the session's open turn. A turn
that changed nothing is dropped, so undo always undoes a turn that did
something. With no open turn, end says so and records nothing (exit 0).`,
		Example: `  turnback snap -m "agent turn"; <the agent works>; turnback end`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withRepo(cmd, turnback.AccessWrite, func(repo *turnback.Repo) error {
				res, err := repo.End(cmd.Context())
				g.endProgress()
				if err != nil {
					return err
				}
				g.noteCapture(res.Files, res.Stats.Dirs)
				g.reportProblems(res)
				if g.json {
					termout.WriteJSON(g.stdout, snapDoc(res))
					return nil
				}
				switch {
				case res.NoOpenTurn:
					fmt.Fprintln(g.stdout, noOpenTurnMessage(res.Session))
				case res.Dropped:
					fmt.Fprintln(g.stdout, res.Snapshot.Short())
					fmt.Fprintln(g.stderr, droppedMessage(res.Turn))
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

func noOpenTurnMessage(session string) string {
	return fmt.Sprintf("no open turn in session %s: nothing recorded", session)
}

func droppedMessage(turn int) string {
	return fmt.Sprintf("turn %d changed nothing and was dropped", turn)
}

// reportProblems lists on stderr what a capture could not capture.
func (g *globals) reportProblems(res *turnback.SnapResult) {
	for _, p := range res.Stats.Problems {
		fmt.Fprintf(g.stderr, "turnback: warning: %s: %s\n", termout.DisplayPath(p.Path), termout.SafeText(p.Err))
	}
	termout.Unprotected(g.stderr, res.Stats.Unprotected)
	if res.RetentionErr != nil {
		fmt.Fprintf(g.stderr, "turnback: warning: automatic retention failed (the snapshot is recorded): %s\n", termout.SafeText(res.RetentionErr.Error()))
	}
}
