package agent

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/turnback/turnback/internal/sessname"
)

// Action is what turnback does for a hook event.
type Action int

// The actions.
const (
	None Action = iota // an event turnback does not use
	Snap               // the agent's turn starts: snap
	End                // the agent's turn ended: end
	Run                // the prompt is turnback's own command (/undo ...), carried out by the hook (Agent.RunsCommands)
)

func (a Action) String() string {
	switch a {
	case Snap:
		return "snap"
	case End:
		return "end"
	case Run:
		return "run"
	}
	return "none"
}

// Event is a hook payload, whichever agent sent it, normalised to what
// turnback uses.
type Event struct {
	Name    string // the agent's own name for the event
	Action  Action
	Session string // the agent's session id ("" if it sent none)
	Cwd     string // the directory the agent runs in ("" if it sent none)
	Prompt  string // for Snap: the user's prompt
}

// Agent is one coding agent turnback hooks into.
type Agent struct {
	Name  string // as on the command line: "turnback hook NAME", "init --NAME"
	Title string // as people know it
	// ProjectEnv lists the environment variables that name the
	// project directory in a hook's environment, most specific first.
	ProjectEnv []string
	// JSONOut: the agent parses the hook's stdout as JSON; the hook
	// prints "{}".
	JSONOut bool
	// Settings is the project's settings file holding the hooks
	// (slash-separated, relative to the folder).
	Settings string
	// Events are the events init installs the hook for.
	Events []string
	// entry is the hook as the settings file spells it.
	entry func(command string) hookEntry
	// Slash commands and the model (commands.go, notice.go). Context: the
	// prompt hook may give the model text on stdout (Output).
	// CommandDir: where the project's slash commands live ("": none);
	// commandFile returns one's file name and content. RunsCommands: the
	// prompt hook sees turnback's own commands (typed, or the agent has
	// expanded the command file into a prompt) and carries them out
	// itself (Run): the output goes to the user with the prompt blocked
	// (blocked), or else to the model (Output).
	Context      bool
	CommandDir   string
	commandFile  func(name, bin string) (file string, data []byte)
	RunsCommands bool
	// ShowsUser: the agent shows the user a prompt hook's systemMessage;
	// the report of a command the hook carried out goes there too.
	ShowsUser bool
	// parse normalises one payload.
	parse func(data []byte) (Event, error)
	// promptTwice: the agent (Copilot CLI) may run the prompt hook
	// twice for one prompt (twice.go), and a prompt that starts with
	// "!" is its shell escape, never a turn (plan.go).
	promptTwice bool

	// Global is the user-level settings file (init --global), relative
	// to the home directory ("": Settings), or to $HomeEnv without its
	// first element when that is set.
	Global  string
	HomeEnv string
	// version, when not 0, is the "version" a new settings file starts
	// with (the agents whose hooks are flat lists).
	version int
	// element, when set, is the entry appended to the event's list in
	// the settings file; without it the entry is a group {"hooks":
	// [entry(command)]} (Claude Code's shape).
	element func(event, command string) any
	// blocked, for an agent whose prompt hook may block the prompt, is
	// what the hook prints to block it and show the user out (Run).
	blocked func(out string) any
	// Trust, when set, is what the user must do before the agent runs
	// hooks init added (init prints it).
	Trust string
	// UndoHow, when set, says how to undo from the agent's session when
	// it has no turnback commands (init prints it).
	UndoHow string
	// An agent without command hooks (OpenCode) gets a plugin file
	// instead of a settings file: plugin is its content, running bin
	// (Settings and Global are its path). GlobalCommandDir is
	// CommandDir for init --global ("": CommandDir). runText, when
	// set, is the text RunOutput gives the model for an own command.
	plugin           func(bin string) []byte
	GlobalCommandDir string
	runText          func(name string, args []string, code int, output string) string
	// cmdPrefix begins the names of turnback's commands in the agent
	// ("tb-" in OpenCode, whose /undo is its own): reports name them so.
	cmdPrefix string
}

// all lists the agents, in the order help and errors name them.
var all = []*Agent{claude, gemini, codex, copilot, cursor, qwen, opencode}

// Lookup returns the agent called name.
func Lookup(name string) (*Agent, bool) {
	for _, a := range all {
		if a.Name == name {
			return a, true
		}
	}
	return nil, false
}

// All returns every agent, in order.
func All() []*Agent { return append([]*Agent(nil), all...) }

// Names returns every agent's name, in order.
func Names() []string {
	var out []string
	for _, a := range all {
		out = append(out, a.Name)
	}
	return out
}

// Parse normalises a payload the agent sent on the hook's stdin.
func (a *Agent) Parse(data []byte) (Event, error) { return a.parse(data) }

// DefaultBudget is how long a hook may take when TURNBACK_HOOK_TIMEOUT
// does not say.
const DefaultBudget = 5 * time.Second

// Budget is the time a hook may take: TURNBACK_HOOK_TIMEOUT, a Go
// duration, when it is one and positive; DefaultBudget otherwise.
func Budget(getenv func(string) string) time.Duration {
	if v := getenv("TURNBACK_HOOK_TIMEOUT"); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			return d
		}
	}
	return DefaultBudget
}

// SessionName turns an agent's session id into a valid session name.
func SessionName(id string) string {
	var b strings.Builder
	for _, r := range id {
		// What the session name rule refuses (package sessname):
		// control characters (C1 too: some terminals obey them), bytes
		// that are not UTF-8 (U+FFFD here), spaces, slashes.
		if !sessname.ValidRune(r) {
			r = '_'
		}
		if b.Len()+utf8.RuneLen(r) > sessname.MaxLen {
			break
		}
		b.WriteRune(r)
	}
	switch s := b.String(); s {
	case ".", "..": // path segments, not names
		return strings.Repeat("_", len(s))
	default:
		return s
	}
}
