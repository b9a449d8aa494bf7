package cli

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
				return codedError{code: exitError, err: agent.Failure{Err: err}}
			}
			return nil
		},
	}
	return cmd
}

// hookEventMax bounds an event read from stdin. A prompt holds what the
// user pasted: logs of tens of MB happen.
const hookEventMax = 256 << 20

// runHook reads the agent's event and, for one that starts or ends a
// turn, runs snap or end on the folder as "turnback -C DIR snap" would,
// with the agent's session, within the hook's time budget. *out is the
// hook's stdout (the agent's): left as it is, or for a prompt after an
// undo or redo the text that tells the model, or the result of one of
// turnback's commands the hook carried out (agent.Run).
func (g *globals) runHook(cmd *cobra.Command, a *agent.Agent, out *string) error {
	data, err := io.ReadAll(io.LimitReader(g.stdin, hookEventMax+1))
	if err != nil {
		return fmt.Errorf("turnback hook %s: read event: %w", a.Name, err)
	}
	if len(data) > hookEventMax {
		return failHook(a, "", fmt.Errorf("turnback hook %s: the event on stdin is over %d MiB: not read", a.Name, hookEventMax>>20))
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
	if p.Event.Action == agent.Run { // turnback's own command, as typed: its output is the result
		var res bytes.Buffer
		// With --agent, it runs as an own command (inagent.go): exit 0,
		// its report says the outcome.
		run := &globals{args: p.Args, stdout: &res, stderr: &res, getenv: g.getenv, cwd: g.cwd, stdin: bytes.NewReader(nil), loc: g.loc}
		execute(cmd.Context(), run)
		*out = a.RunOutput(p.Event, run.ownCode, res.String())
		return nil
	}
	h := &globals{dir: p.Dir, store: g.store, session: p.Session, force: g.force, agent: a.Name,
		stdout: io.Discard, stderr: g.stderr, args: p.Args, getenv: g.getenv, cwd: g.cwd, stdin: bytes.NewReader(nil),
		outTTY: false, errTTY: g.errTTY, loc: g.loc}
	budget := agent.Budget(g.getenv)
	ctx, cancel := context.WithTimeout(cmd.Context(), budget)
	defer cancel()
	cmd.SetContext(ctx)
	notice, pulled, err := h.hookCapture(cmd, a, p.Event, p.LogDir, budget)
	h.endProgress()
	if err == nil {
		h.autoWatch()
		if p.Event.Action == agent.End {
			h.backgroundPush(p.Session, false)
		}
	} else {
		h.local.Abandon()
	}
	if tell := a.TellPull(p.Event, notice, pulled, g.getenv); tell != nil {
		*out = string(tell)
	}
	return err
}

// hookCapture is the hook's snap or end, on h (the command it stands
// for; through a watch daemon, if one serves the store). A snap takes
// the session's notice of undo and redo. pulled is the warning of a
// capture that ended a pull's pending apply (also said on stderr).
func (h *globals) hookCapture(cmd *cobra.Command, a *agent.Agent, ev agent.Event, logDir string, budget time.Duration) (notice *turnback.Notice, pulled string, err error) {
	ctx := cmd.Context()
	action := ev.Action.String()
	repo, err := h.openRepo(cmd, turnback.AccessWrite)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, turnback.ErrBusy) {
			a.Skip(h.stderr, logDir, fmt.Sprintf("hook skipped %s: %s", action, termout.SafeText(err.Error())), fmt.Errorf("skipped %s: %w", action, err))
			return nil, "", nil
		}
		if errors.Is(err, turnback.ErrScope) {
			logDir = "" // no store folder for a refused folder
		}
		return nil, "", failHook(a, logDir, err)
	}
	defer repo.Close()
	res, err := a.Capture(ctx, repo, ev)
	if err == nil {
		h.local.Note(res.Files, res.Stats.Dirs)
	}
	h.endProgress()
	if err != nil && ctx.Err() != nil {
		a.Skip(h.stderr, repo.StoreDir(), fmt.Sprintf("%s took longer than %v and was skipped (nothing recorded)", action, budget), fmt.Errorf("%s timed out after %v", action, budget))
		// A folder too big to capture within the budget is the one a
		// watch daemon is for: its first capture runs in the background,
		// and once it is done the hooks cost only what changed.
		h.local.NoteTimedOut()
		return nil, "", nil
	}
	if err != nil {
		return nil, "", failHook(a, repo.StoreDir(), err)
	}
	if note := agent.DroppedNote(nil, res); ev.Action == agent.End && note != "" {
		fmt.Fprintln(h.stderr, note)
	}
	if p := res.PullEnded; p != nil {
		op := "started"
		if ev.Action == agent.End {
			op = "ended"
		}
		pulled = termout.PullEnded(p, res.Turn, op, h.cliStart())
		fmt.Fprintln(h.stderr, pulled)
	}
	return res.Notice, pulled, nil
}
