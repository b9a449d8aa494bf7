package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

// hookEvent is the part of an agent's hook payload turnback reads.
type hookEvent struct {
	SessionID string `json:"session_id"`
	Cwd       string `json:"cwd"`
	Event     string `json:"hook_event_name"`
	Prompt    string `json:"prompt"`
}

// hookAgents maps each agent's events to what turnback does.
var hookAgents = map[string]struct {
	snap, end  []string
	projectEnv []string
	jsonOut    bool // the agent parses stdout as JSON
}{
	"claude": {snap: []string{"UserPromptSubmit"}, end: []string{"Stop", "SessionEnd"},
		projectEnv: []string{"CLAUDE_PROJECT_DIR"}},
	"gemini": {snap: []string{"BeforeAgent"}, end: []string{"AfterAgent", "SessionEnd"},
		projectEnv: []string{"GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"}, jsonOut: true},
}

const defaultHookBudget = 5 * time.Second

func newHookCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook claude|gemini",
		Short: "Run as an agent hook: read the event on stdin, snap or end",
		Long: `hook is what an agent's hook configuration runs (see "turnback init"). It
reads the hook event as JSON on stdin and maps it:

  Claude Code:  UserPromptSubmit -> snap (message: the prompt's first line)
                Stop, SessionEnd -> end
  Gemini CLI:   BeforeAgent      -> snap
                AfterAgent, SessionEnd -> end

The session is the agent's session id, so each conversation has its own
stack of turns ("turnback --session <id> undo"). The folder is -C if given;
else, starting from the agent's project directory ($CLAUDE_PROJECT_DIR /
$GEMINI_PROJECT_DIR) or, without one, the event's cwd, the nearest folder
from there up that already has a store (so a hook run from a subfolder
records into the folder's store, never a second one), else that start
folder itself.

A hook must never get in the agent's way: it prints nothing on stdout for
Claude Code (which would feed it to the model) and only "{}" for Gemini CLI,
never exits 2 (which would block the prompt), and gives up with a warning
and exit 0 after $TURNBACK_HOOK_TIMEOUT (default 5s). Failures are appended
to hook.log in the store directory and reported on stderr with exit 1.`,
		Example:   `  echo '{"session_id":"abc","cwd":"/src/app","hook_event_name":"UserPromptSubmit","prompt":"fix the bug"}' | turnback hook claude`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"claude", "gemini"},
		RunE: func(cmd *cobra.Command, args []string) error {
			agent, ok := hookAgents[args[0]]
			if !ok {
				return usageError{fmt.Errorf("unknown agent %q: want claude or gemini", args[0])}
			}
			if agent.jsonOut {
				defer fmt.Fprintln(g.stdout, "{}")
			}
			err := g.runHook(cmd, args[0], agent.snap, agent.end, agent.projectEnv)
			if err != nil {
				// Exit 1, never 2: report, never block the agent.
				return codedError{code: exitError, err: err}
			}
			return nil
		},
	}
	return cmd
}

func (g *globals) runHook(cmd *cobra.Command, agent string, snapEvents, endEvents, projectEnv []string) error {
	g.json = false // the agent owns stdout
	data, err := io.ReadAll(io.LimitReader(g.stdin, 16<<20))
	if err != nil {
		return fmt.Errorf("turnback hook %s: read event: %w", agent, err)
	}
	// Where failures are logged: the store, as soon as it is known.
	logDir := g.store
	if logDir == "" {
		logDir = g.getenv("TURNBACK_STORE")
	}
	var ev hookEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return g.hookFail(agent, logDir, fmt.Errorf("turnback hook %s: the event on stdin is not JSON: %w", agent, err))
	}
	var action string
	switch {
	case contains(snapEvents, ev.Event):
		action = "snap"
	case contains(endEvents, ev.Event):
		action = "end"
	default:
		return nil // an event turnback does not use
	}
	dir := g.dir
	if dir == "" {
		start, wt := g.hookFolder(projectEnv, ev.Cwd)
		if start == "" {
			return g.hookFail(agent, logDir, fmt.Errorf("turnback hook %s: the event names no folder (no cwd, no project dir)", agent))
		}
		if fi, err := os.Stat(start); err != nil || !fi.IsDir() {
			return g.hookFail(agent, logDir, fmt.Errorf("turnback hook %s: folder %s does not exist", agent, termout.QuotePath(start)))
		}
		dir = wt
	} else if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return g.hookFail(agent, logDir, fmt.Errorf("turnback hook %s: folder %s does not exist", agent, termout.QuotePath(dir)))
	}
	if logDir == "" {
		if _, s, err := turnback.Locate(dir, ""); err == nil {
			logDir = s
		}
	}
	if g.session == "" && ev.SessionID != "" {
		g.session = sessionName(ev.SessionID)
	}
	budget := defaultHookBudget
	if v := g.getenv("TURNBACK_HOOK_TIMEOUT"); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			budget = d
		}
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), budget)
	defer cancel()
	cmd.SetContext(ctx)
	g.dir = dir
	// Through a watch daemon, the hook runs the plain command; stdout
	// belongs to the agent.
	g.sentArgs = []string{"-C", dir}
	if g.store != "" {
		g.sentArgs = append(g.sentArgs, "--store", g.store)
	}
	if g.session != "" {
		g.sentArgs = append(g.sentArgs, "--session", g.session)
	}
	g.sentArgs = append(g.sentArgs, action)
	if action == "snap" {
		// snap keeps the message's first line only.
		msg, _, _ := strings.Cut(ev.Prompt, "\n")
		if len(msg) > 4096 {
			msg = msg[:4096]
		}
		g.sentArgs = append(g.sentArgs, "--message="+msg)
	}
	g.stdout = io.Discard
	g.quiet = true
	repo, err := g.open(cmd)
	var fe forwardedExit
	if errors.As(err, &fe) {
		switch {
		case fe.code == exitOK:
			return nil
		case ctx.Err() != nil || fe.code == exitBusy:
			fmt.Fprintf(g.stderr, "turnback: warning: hook skipped %s (the watch daemon's exit code %d)\n", action, fe.code)
			g.logHook(agent, logDir, fmt.Errorf("skipped %s through the watch daemon: exit %d", action, fe.code))
			return nil
		}
		return g.hookFail(agent, logDir, fmt.Errorf("turnback hook %s: %s through the watch daemon failed with exit %d (its message is above)", agent, action, fe.code))
	}
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, turnback.ErrBusy) {
			fmt.Fprintf(g.stderr, "turnback: warning: hook skipped %s: %s\n", action, termout.SafeText(err.Error()))
			g.logHook(agent, logDir, fmt.Errorf("skipped %s: %w", action, err))
			return nil
		}
		return g.hookFail(agent, logDir, err)
	}
	defer repo.Close()
	var res *turnback.SnapResult
	switch action {
	case "snap":
		res, err = repo.Snap(ctx, ev.Prompt)
	case "end":
		res, err = repo.End(ctx)
	}
	if err == nil {
		g.noteCapture(res.Files, res.Stats.Dirs)
	}
	g.endProgress()
	if err != nil && ctx.Err() != nil {
		fmt.Fprintf(g.stderr, "turnback: warning: %s took longer than %v and was skipped (nothing recorded)\n", action, budget)
		g.logHook(agent, repo.StoreDir(), fmt.Errorf("%s timed out after %v", action, budget))
		// A folder too big to capture within the budget is the one a
		// watch daemon is for: its first capture runs in the background,
		// and once it is done the hooks cost only what changed.
		g.noteCaptureTimedOut()
		return nil
	}
	if err != nil {
		return g.hookFail(agent, repo.StoreDir(), err)
	}
	return nil
}

// sessionName turns an agent's session id into a valid session name.
func sessionName(id string) string {
	var b strings.Builder
	for _, r := range id {
		// Control characters (C1 too: some terminals obey them) and
		// bytes that are not UTF-8 (U+FFFD here) would reach the
		// terminal wherever the session is named.
		if r <= ' ' || r == '/' || r == 0x7f || termout.IsC1(r) || r == utf8.RuneError {
			r = '_'
		}
		if b.Len()+utf8.RuneLen(r) > 200 {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (g *globals) hookFail(agent, store string, err error) error {
	g.logHook(agent, store, err)
	return err
}

// logHook appends a failure to hook.log in the store directory (or in
// the default store root when the store is not known).
func (g *globals) logHook(agent, store string, err error) {
	dir := store
	if dir == "" {
		root, rerr := turnback.DefaultStoreRoot()
		if rerr != nil {
			return
		}
		dir = root
	}
	if os.MkdirAll(dir, 0o700) != nil {
		return
	}
	f, ferr := os.OpenFile(filepath.Join(dir, "hook.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if ferr != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s hook %s: %s\n", time.Now().Format(time.RFC3339), agent, termout.SafeText(err.Error()))
}
