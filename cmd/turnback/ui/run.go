package ui

import (
	"context"
	"errors"
	"os"

	tea "charm.land/bubbletea/v2"
	"golang.org/x/term"

	"github.com/turnback/turnback"
)

// ErrNoTerminal: stdin or stdout is not a terminal.
var ErrNoTerminal = errors.New("turnback ui needs a terminal")

// Pick returns the session the UI shows when not every one (the rules
// of the other commands): the session named (a unique prefix), else
// "default" while it has turns, else that of the newest turn. A name
// several sessions start with is an *turnback.AmbiguousSessionError;
// two live sessions with none named are not (reading never refuses):
// all says to show every session then.
func Pick(ctx context.Context, f *Folder, name string) (session string, all bool, err error) {
	err = f.read(ctx, turnback.DefaultSession, func(repo *turnback.Repo) error {
		if name != "" {
			var err error
			session, err = repo.FindSession(ctx, name)
			return err
		}
		s, err := repo.LatestSession(ctx)
		var ae *turnback.AmbiguousSessionError
		if errors.As(err, &ae) && len(ae.Sessions) > 0 {
			session, all = ae.Sessions[0].Name, true
			return nil
		}
		session = s.Name
		return err
	})
	return session, all, err
}

// Run runs the UI on the terminal of in and out until the user quits.
func Run(ctx context.Context, cfg Config, in, out *os.File) error {
	if !term.IsTerminal(int(in.Fd())) || !term.IsTerminal(int(out.Fd())) {
		return ErrNoTerminal
	}
	m := New(ctx, cfg)
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out))
	_, err := p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil // interrupted: nothing was running
	}
	return err
}
