package cli

import (
	"fmt"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

// movedHintMax bounds the folders movedHint names.
const movedHintMax = 3

// movedHint: when repo's folder has no turns in any session, it may be a
// folder that was moved or renamed, whose history is still under its old
// path. movedHint names, on stderr, gone folders of the same name or
// parent (turnback.MovedFrom) and how to take one over. Not for --json,
// nor for an agent's /undo (its report is the agent's).
func (g *globals) movedHint(repo *turnback.Repo, sessions []turnback.SessionInfo) {
	if g.json || g.own != "" || g.agent != "" {
		return
	}
	for _, s := range sessions {
		if s.Turns > 0 || s.Redo > 0 {
			return
		}
	}
	from, err := turnback.MovedFrom(repo.WorkTree())
	if err != nil || len(from) == 0 {
		return
	}
	for i, f := range from {
		if i == movedHintMax {
			fmt.Fprintf(g.stderr, "turnback: and %d more such folders (turnback gc --stores lists them)\n", len(from)-i)
			break
		}
		fmt.Fprintf(g.stderr, "turnback: %s, which is gone, has history: if this folder was moved or renamed from there, run: turnback adopt %s\n",
			termout.QuotePath(f), termout.QuotePath(f))
	}
}
