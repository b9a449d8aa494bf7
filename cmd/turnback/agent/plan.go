package agent

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

// Plan is what a hook does for one event: snap or end on a folder, in a
// session, as the command line Args would.
type Plan struct {
	Event   Event
	Dir     string   // the work tree
	Session string   // the session ("" for the default)
	Args    []string // the command the hook stands for, as a watch daemon runs it
	// LogDir is where the hook's failures are logged: the store, as soon
	// as it is known ("": the default store root, as for a folder
	// turnback refuses).
	LogDir string
}

// Plan reads a payload into the Plan of its event; an event turnback
// does not use has Action None. env holds the hook command's flags and
// surroundings: -C (Dir), --store, --session, --force. An error (a
// payload that is not JSON, no folder, a folder that does not exist)
// names the hook; the caller logs it in the Plan's LogDir.
func (a *Agent) Plan(data []byte, env Env) (Plan, error) {
	p := Plan{LogDir: env.Store}
	if p.LogDir == "" {
		p.LogDir = env.Getenv("TURNBACK_STORE")
	}
	ev, err := a.Parse(data)
	var bad *PayloadError
	if errors.As(err, &bad) {
		return p, fmt.Errorf("turnback hook %s: the event on stdin is not JSON: %w", a.Name, bad.Err)
	}
	var run []string // turnback's own command the hook carries out
	if name, args, ok := OwnCommand(a.unprefixed(ev.Prompt)); ok && (ev.Action == Snap || ev.Action == Run) {
		ev.Action = None // never a turn: see OwnCommand
		if a.RunsCommands {
			ev.Action, run = Run, CommandArgs(name, args)
		}
	}
	if a.promptTwice && ev.Action == Snap && strings.HasPrefix(strings.TrimSpace(ev.Prompt), "!") {
		// Copilot CLI's shell escape: the user's command, never the
		// agent's turn (UndoHow tells users to undo this way).
		ev.Action = None
	}
	p.Event = ev
	if ev.Action == None {
		return p, nil
	}
	p.Dir = env.Dir
	if p.Dir == "" {
		start, wt := a.Folder(ev, env)
		if start == "" {
			return p, fmt.Errorf("turnback hook %s: the event names no folder (no cwd, no project dir)", a.Name)
		}
		if fi, err := os.Stat(start); err != nil || !fi.IsDir() {
			return p, fmt.Errorf("turnback hook %s: folder %s does not exist", a.Name, termout.QuotePath(start))
		}
		p.Dir = wt
	} else if fi, err := os.Stat(p.Dir); err != nil || !fi.IsDir() {
		return p, fmt.Errorf("turnback hook %s: folder %s does not exist", a.Name, termout.QuotePath(p.Dir))
	}
	if !env.Force && refusedFolder(p.Dir) {
		// It has no store: its failures go to the data directory's
		// hook.log, never into a store folder made for it.
		p.LogDir = ""
	} else if p.LogDir == "" {
		if _, s, err := turnback.Locate(p.Dir, ""); err == nil {
			p.LogDir = s
		}
	}
	p.Session = env.Session
	if p.Session == "" && ev.Session != "" {
		p.Session = SessionName(ev.Session)
	}
	p.Args = []string{"-C", p.Dir}
	if env.Store != "" {
		p.Args = append(p.Args, "--store", env.Store)
	}
	if p.Session != "" {
		p.Args = append(p.Args, "--session", p.Session)
	}
	if run != nil {
		if p.Session == "" { // never another session's turns
			return p, fmt.Errorf("turnback hook %s: %s: the event names no session; run turnback %s with --session in a shell", a.Name, ev.Prompt, strings.Join(run, " "))
		}
		p.Args = append(p.Args, run...)
		return p, nil
	}
	if ev.Action == Snap && a.Context {
		// Through a watch daemon, the snap takes the notice and prints
		// it (DecodeNotice).
		p.Args = append(p.Args, "--json", "snap", "--take-notice")
	} else if ev.Action == End {
		// Through a watch daemon, end's document says whether the turn
		// changed only ignored paths (DroppedNote).
		p.Args = append(p.Args, "--json", "end")
	} else {
		p.Args = append(p.Args, ev.Action.String())
	}
	if ev.Action == Snap {
		// snap keeps the message's first line only.
		msg, _, _ := strings.Cut(ev.Prompt, "\n")
		if len(msg) > 4096 {
			msg = msg[:4096]
		}
		p.Args = append(p.Args, "--message="+msg)
	}
	return p, nil
}
