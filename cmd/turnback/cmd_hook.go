package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/agent"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

func newHookCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:       "hook " + strings.Join(agent.Names(), "|"),
		Short:     "Run as an agent hook: read the event on stdin, snap or end",
		Args:      cobra.ExactArgs(1),
		ValidArgs: agent.Names(),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, ok := agent.Lookup(args[0])
			if !ok {
				return usageError{fmt.Errorf("unknown agent %q: want %s", args[0], strings.Join(agent.Names(), " or "))}
			}
			out := ""
			if a.JSONOut {
				out = "{}\n"
			}
			defer func() { fmt.Fprint(g.stdout, out) }()
			err := g.runHook(cmd, a, &out)
			if err != nil {
				// Exit 1, never 2: report, never block the agent.
				return codedError{code: exitError, err: hookFailure{err}}
			}
			return nil
		},
	}
	return cmd
}

// runHook reads the agent's event and, for one that starts or ends a
// turn, runs snap or end on the folder as "turnback -C DIR snap" would,
// with the agent's session, within the hook's time budget, printing
// nothing on stdout (the agent's: *out is what the hook prints there).
func (g *globals) runHook(cmd *cobra.Command, a *agent.Agent, out *string) error {
	data, err := io.ReadAll(io.LimitReader(g.stdin, 16<<20))
	if err != nil {
		return fmt.Errorf("turnback hook %s: read event: %w", a.Name, err)
	}
	p, err := a.Plan(data, agent.Env{Getenv: g.getenv, Getwd: g.getwd, Dir: g.dir, Store: g.store, Session: g.session, Force: g.force})
	if err != nil {
		return failHook(a, p.LogDir, err)
	}
	if p.Event.Action == agent.None {
		return nil // an event turnback does not use
	}
	// Every command a hook runs is run for its agent (also through a
	// daemon): its session exactly, and snap records the agent.
	p.Args = append(p.Args, "--agent="+a.Name)
	if p.Event.Action == agent.Run { // /undo, /redo: run as typed, show the user, block the prompt
		var res bytes.Buffer
		execute(cmd.Context(), &globals{args: p.Args, stdout: &res, stderr: &res, getenv: g.getenv, cwd: g.cwd, stdin: g.stdin, loc: g.loc})
		*out = a.Blocked(res.String())
		return nil
	}
	h := &globals{dir: p.Dir, store: g.store, session: p.Session, force: g.force, agent: a.Name,
		stdout: io.Discard, stderr: g.stderr, args: p.Args, getenv: g.getenv, cwd: g.cwd, stdin: g.stdin,
		outTTY: g.outTTY, errTTY: g.errTTY, served: g.served, loc: g.loc, quiet: true}
	budget := agent.Budget(g.getenv)
	ctx, cancel := context.WithTimeout(cmd.Context(), budget)
	defer cancel()
	cmd.SetContext(ctx)
	err = h.hookCapture(cmd, a, p.Event, p.LogDir, budget)
	h.endProgress()
	if err == nil {
		h.autoWatch()
	}
	return err
}

// hookCapture is the hook's snap or end, on h (the command it stands for).
func (h *globals) hookCapture(cmd *cobra.Command, a *agent.Agent, ev agent.Event, logDir string, budget time.Duration) error {
	ctx := cmd.Context()
	action := ev.Action.String()
	repo, err := h.openRepo(cmd, turnback.AccessWrite)
	var fe forwardedExit
	if errors.As(err, &fe) {
		switch {
		case fe.code == exitOK:
			return nil
		case ctx.Err() != nil || fe.code == exitBusy:
			fmt.Fprintf(h.stderr, "turnback: warning: hook skipped %s (the watch daemon's exit code %d)\n", action, fe.code)
			a.Log(logDir, fmt.Errorf("skipped %s through the watch daemon: exit %d", action, fe.code))
			return nil
		}
		return failHook(a, logDir, fmt.Errorf("turnback hook %s: %s through the watch daemon failed with exit %d (its message is above)", a.Name, action, fe.code))
	}
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, turnback.ErrBusy) {
			fmt.Fprintf(h.stderr, "turnback: warning: hook skipped %s: %s\n", action, termout.SafeText(err.Error()))
			a.Log(logDir, fmt.Errorf("skipped %s: %w", action, err))
			return nil
		}
		return failHook(a, logDir, err)
	}
	defer repo.Close()
	var res *turnback.SnapResult
	switch ev.Action {
	case agent.Snap:
		res, err = repo.Snap(ctx, ev.Prompt)
	case agent.End:
		res, err = repo.End(ctx)
	}
	if err == nil {
		h.local.Note(res.Files, res.Stats.Dirs)
	}
	h.endProgress()
	if err != nil && ctx.Err() != nil {
		fmt.Fprintf(h.stderr, "turnback: warning: %s took longer than %v and was skipped (nothing recorded)\n", action, budget)
		a.Log(repo.StoreDir(), fmt.Errorf("%s timed out after %v", action, budget))
		// A folder too big to capture within the budget is the one a
		// watch daemon is for: its first capture runs in the background,
		// and once it is done the hooks cost only what changed.
		h.local.NoteTimedOut()
		return nil
	}
	if err != nil {
		return failHook(a, repo.StoreDir(), err)
	}
	return nil
}

// hookFailure is a hook's error: reported on stderr only, since stdout
// belongs to the agent (also with --json).
type hookFailure struct{ err error }

func (e hookFailure) Error() string { return e.err.Error() }

func (e hookFailure) Unwrap() error { return e.err }
