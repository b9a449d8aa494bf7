package cli

// Own commands inside an agent: "turnback --agent NAME ... undo|redo|log"
// without --json, as init's command files and the prompt hooks run
// /undo, /redo and /turns. Every outcome (done, conflict, incomplete,
// nothing to do, busy, an error) is a report on stdout with exit code 0,
// its next steps phrased as the agent's commands: Claude Code shows a
// command line that fails only as failed, and gives the model nothing.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/agent"
	"github.com/turnback/turnback/cmd/turnback/envopt"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

// ownCommand returns the own command ("undo", "redo", "turns") that args
// run inside an agent (--agent, no --json), "" for none.
func ownCommand(root *cobra.Command, args []string) string {
	if termout.WantsJSON(args) || !hasAgentFlag(args) {
		return ""
	}
	c, _, err := root.Find(args)
	if err != nil {
		return ""
	}
	switch c.Name() {
	case "undo", "redo", "log":
		return agent.OwnName(c.Name())
	}
	return ""
}

// hasAgentFlag reports whether args give --agent.
func hasAgentFlag(args []string) bool {
	for _, a := range args {
		switch {
		case a == "--":
			return false
		case a == "--agent", strings.HasPrefix(a, "--agent="):
			return true
		}
	}
	return false
}

// reported is an error whose report the command has printed already
// (it does not unwrap: nothing is to be made of it again).
type reported struct{ error }

// ownFailure prints the report of an own command that failed: its
// message and what to type next.
func (g *globals) ownFailure(err error) {
	if errors.As(err, new(reported)) {
		return
	}
	msg := termout.SafeText(err.Error())
	if !strings.HasPrefix(msg, "turnback") {
		msg = "turnback: " + msg
	}
	switch {
	case errors.Is(err, turnback.ErrBusy):
		msg += "\n" + g.ownAgent().Busy(g.own)
	case exitCode(err) == exitUsage:
		msg += "\n" + g.ownAgent().Usage(g.own)
	default:
		msg += hint(err)
	}
	fmt.Fprintln(g.stdout, msg)
}

// ownSession is the session an own command works on: the
// conversation's own (repo's, as the agent names it) when it has turns;
// else a session the user named (/undo --session 4f1c: any unique
// start of a name); else, in a conversation without turns, the
// session of the folder's newest turn (turnback.Repo.LatestSession),
// said in a note. When a session has a turn open right now (another
// conversation may be working), it picks none and says how to name one.
func (g *globals) ownSession(ctx context.Context, repo *turnback.Repo) (string, error) {
	name := repo.Session()
	list, err := repo.Sessions(ctx)
	if err != nil {
		return "", err
	}
	for _, s := range list {
		if s.Name == name && s.Turns+s.Redo > 0 {
			return name, nil
		}
	}
	if found, err := repo.FindSession(ctx, name); err != nil || found != name {
		return found, err
	}
	now := envopt.Now(g.getenv)
	s, err := repo.LatestSession(ctx)
	var ae *turnback.AmbiguousSessionError
	var which []turnback.SessionInfo
	switch {
	case errors.As(err, &ae):
		which = ae.Sessions
	case err == nil && s.Working(now): // another conversation, working now
		which, err = []turnback.SessionInfo{s}, errors.New("turnback: the newest session is working")
		for _, o := range list { // and the newest one that is not: maybe the one meant
			if o.Name != s.Name && o.Turns+o.Redo > 0 && !o.Working(now) && turnback.ValidSession(o.Name) == nil {
				which = append(which, o)
				break
			}
		}
	}
	if which != nil {
		var names []string
		first := which[0].Short
		for i, s := range which {
			names = append(names, termout.AboutSession(s, now))
			if i > 0 && which[0].Working(now) && !s.Working(now) && first == which[0].Short {
				first = s.Short // the example never names a conversation at work
			}
		}
		fmt.Fprintln(g.stdout, g.ownAgent().WhichSession(g.own, names, first))
		return "", codedError{exitUsage, reported{err}}
	}
	if err != nil || s.Turns+s.Redo == 0 {
		return name, err
	}
	fmt.Fprintln(g.stdout, agent.OtherSession(termout.UsingSession(s, now)))
	return s.Name, nil
}

// readsTurns: cmd only reads its session's turns (log, status, show,
// diff), so another session working right now does not stop it.
func readsTurns(cmd *cobra.Command) bool {
	return strings.Contains(" log status show diff ", " "+cmd.Name()+" ")
}

// ownAgent is the agent an own command runs for (nil: one with the
// plain command names).
func (g *globals) ownAgent() *agent.Agent {
	a, _ := agent.Lookup(g.agent)
	return a
}

// ownProjectDir is where an own command without -C or --store starts
// looking for its folder: the agent's project directory, as its hooks
// do (agent.Folder), when the agent sets one. The agent's shell keeps a
// cd made in a turn, so the current directory may be a subfolder with
// a store of its own. "" means the current directory.
func (g *globals) ownProjectDir() string {
	if g.own == "" || g.dir != "" || g.store != "" {
		return ""
	}
	a, ok := agent.Lookup(g.agent)
	if !ok {
		return ""
	}
	for _, v := range a.ProjectEnv {
		if d := g.getenv(v); d != "" && filepath.IsAbs(d) {
			return d
		}
	}
	return ""
}
