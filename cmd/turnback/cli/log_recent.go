package cli

import (
	"context"
	"fmt"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/envopt"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

// recentLog prints, for a log given no session, every recent session
// (a turn within turnback.ActiveWindow, or one open right now) besides
// cur, the one picked: each as log shows one, newest first, a blank
// line between. It reports false, printing nothing, when no other
// session is recent (or a session was named): log then prints cur alone.
func (g *globals) recentLog(ctx context.Context, repo *turnback.Repo, list []turnback.SessionInfo, cur turnback.SessionInfo) (bool, error) {
	if g.opts.Session != "" || g.agent != "" {
		return false, nil
	}
	now := envopt.Now(g.getenv)
	var shown []turnback.SessionInfo
	for _, s := range list {
		recent := s.Turns+s.Redo > 0 && (s.Working(now) || now.Sub(s.LastTurn) < turnback.ActiveWindow)
		if s.Name == cur.Name || recent && turnback.ValidSession(s.Name) == nil {
			shown = append(shown, s)
		}
	}
	if len(shown) < 2 {
		return false, nil
	}
	for i, s := range shown {
		o := g.opts
		o.Session = s.Name
		view, err := repo.View(o)
		if err != nil {
			return false, err
		}
		turns, redo, err := view.Turns(ctx)
		if err != nil {
			return false, err
		}
		lost, err := view.UnprotectedChanges(ctx, append(append([]*turnback.Turn{}, turns...), redo...))
		if err != nil {
			return false, err
		}
		if i > 0 {
			fmt.Fprintln(g.stdout)
		}
		termout.LogColor(g.stdout, s, turns, redo, lost, g.location(), g.useColor())
	}
	return true, nil
}

// nothingToRedo is what redo with nothing to redo says: when a turn
// replaced the undone turns, that turn, when, and where their states
// are (checkpoints).
func (g *globals) nothingToRedo(ctx context.Context, repo *turnback.Repo) string {
	list, err := repo.Sessions(ctx)
	if err != nil {
		return "nothing to redo"
	}
	s := termout.SessionOf(list, repo.Session())
	if s.RedoClearedBy == 0 || s.Redo > 0 {
		return "nothing to redo"
	}
	return fmt.Sprintf("nothing to redo: turn %d changed the folder after the undo (%s) and replaced the undone turns; "+
		"the states the undo replaced are listed by turnback checkpoints", s.RedoClearedBy, s.RedoCleared.In(g.location()).Format("2006-01-02 15:04:05"))
}
