package agent

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/turnback/turnback/cmd/turnback/termout"
)

// InitOptions say where init writes and what.
type InitOptions struct {
	Dir    string // the project folder (without Global)
	Global bool   // the user-level settings instead of the project's
	Remove bool   // take turnback's hooks out instead
	Getenv func(string) string
}

// InitResult is what init did.
type InitResult struct {
	Agent    *Agent `json:"-"`
	Remove   bool   `json:"-"`
	Settings string `json:"settings"`
	Changed  bool   `json:"changed"`
	// Command is the hook's command line (not on removal); OffPath says
	// it is this executable's absolute path, turnback not being on PATH.
	Command string `json:"command,omitempty"`
	OffPath bool   `json:"off_path,omitempty"`
	// Deleted: the removal deleted the file, which held nothing else.
	Deleted bool `json:"deleted,omitempty"`
	// Commands: the slash commands init wrote, and those it left as the
	// user's (not on removal). CommandsRemoved: the command files the
	// removal deleted (those init wrote: with commandMark).
	Commands        *CommandsResult `json:"commands,omitempty"`
	CommandsRemoved []string        `json:"commands_removed,omitempty"`
}

// SettingsPath is the settings file init edits: the project's in dir,
// or with global the user's.
func (a *Agent) SettingsPath(dir string, global bool, getenv func(string) string) (string, error) {
	rel := a.Settings
	if global && a.Global != "" {
		rel = a.Global
	}
	return a.initPath(rel, dir, global, getenv)
}

// initPath is rel (slash-separated) in the project folder dir, or with
// global in the user's home (or $HomeEnv without rel's first element).
func (a *Agent) initPath(rel, dir string, global bool, getenv func(string) string) (string, error) {
	if !global {
		return filepath.Join(dir, filepath.FromSlash(rel)), nil
	}
	if a.HomeEnv != "" {
		if h := getenv(a.HomeEnv); h != "" {
			_, rest, _ := strings.Cut(rel, "/")
			return filepath.Join(h, filepath.FromSlash(rest)), nil
		}
	}
	home := getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", fmt.Errorf("turnback init: no home directory for --global: %w", err)
		}
	}
	return filepath.Join(home, filepath.FromSlash(rel)), nil
}

// Init adds turnback's hooks to the agent's settings file, or with
// Remove takes them out.
func (a *Agent) Init(o InitOptions) (InitResult, error) {
	r := InitResult{Agent: a, Remove: o.Remove}
	path, err := a.SettingsPath(o.Dir, o.Global, o.Getenv)
	if err != nil {
		return r, err
	}
	r.Settings = path
	if !o.Global && !o.Remove && refusedFolder(o.Dir) {
		return r, a.refusedInit(o, path)
	}
	cdir := ""
	if a.CommandDir != "" {
		rel := a.CommandDir
		if o.Global && a.GlobalCommandDir != "" {
			rel = a.GlobalCommandDir
		}
		if cdir, err = a.initPath(rel, o.Dir, o.Global, o.Getenv); err != nil {
			return r, err
		}
	}
	cmd, offPath, cmdErr := a.command()
	if o.Remove {
		// The command files first: their folder may be the settings'.
		if r.CommandsRemoved, err = a.removeCommands(cdir); err != nil {
			return r, err
		}
		// Any turnback's hook goes, this executable's by its path too.
		if a.plugin != nil {
			r.Changed, r.Deleted, err = a.uninstallPlugin(path)
		} else {
			r.Changed, r.Deleted, err = a.uninstall(path, cmd)
		}
		return r, err
	}
	if cmdErr != nil {
		return r, cmdErr
	}
	r.Command, r.OffPath = cmd, offPath
	install := a.install
	if a.plugin != nil {
		install = a.installPlugin
	}
	if r.Changed, err = install(path, r.Command); err != nil {
		return r, err
	}
	cmds, err := a.installCommands(cdir, r.Command)
	r.Commands = &cmds
	return r, err
}

// refusedInit is the error of an init in a folder turnback refuses (the
// home directory, the filesystem root): its hooks would do nothing
// there, and in the home directory the folder's settings file is often
// the user-level one, which every project reads.
func (a *Agent) refusedInit(o InitOptions, path string) error {
	dir := o.Dir
	if abs, err := filepath.Abs(dir); err == nil {
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			dir = real
		}
	}
	what := "the filesystem root"
	if filepath.Dir(dir) != dir {
		what = "your home directory"
	}
	also := ""
	if global, err := a.SettingsPath(o.Dir, true, o.Getenv); err == nil && sameFile(global, path) {
		also = fmt.Sprintf(", and %s is %s's user-level settings, which every project reads", termout.QuotePath(path), a.Title)
	}
	return fmt.Errorf("turnback init: %s is %s, which turnback does not record, so the hooks would do nothing here%s; run init in a project folder, or add --global for every project",
		termout.QuotePath(o.Dir), what, also)
}

// sameFile reports whether two settings paths name one file, also
// through symlinks: each is resolved as far as it exists.
func sameFile(a, b string) bool {
	return a == b || resolved(a) == resolved(b)
}

// resolved is p with symlinks resolved in its longest part that exists.
func resolved(p string) string {
	rest := ""
	for dir := filepath.Clean(p); ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(dir) == dir {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// command is the command line the agent runs: plain "turnback hook
// NAME" when turnback is on PATH, otherwise this executable's absolute
// path (quoted for sh when it needs it). An executable go run built in
// a temporary folder is refused: it is gone once go run returns.
func (a *Agent) command() (string, bool, error) {
	if _, err := exec.LookPath("turnback"); err == nil {
		return "turnback hook " + a.Name, false, nil
	}
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return "", false, fmt.Errorf("turnback init: turnback is not on PATH and the path of this executable is unknown (%w); install it on PATH (go install ./cmd/turnback) and run init again", err)
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "", false, errors.New("turnback init: turnback is not on PATH, and this is a temporary executable of go run that the hooks could not run; install it (go install ./cmd/turnback, which puts it in $(go env GOPATH)/bin: add that to PATH) and run init again")
	}
	bin := exe
	if strings.ContainsFunc(exe, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '+' || r == ':' || r == '\\' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		bin = "'" + strings.ReplaceAll(exe, "'", `'\''`) + "'"
	}
	return bin + " hook " + a.Name, true, nil
}

// Print writes what init did, as a JSON document with asJSON.
func (r InitResult) Print(w io.Writer, asJSON bool) {
	if asJSON {
		termout.WriteJSON(w, r)
		return
	}
	path := termout.QuotePath(r.Settings)
	switch {
	case r.Remove && r.Deleted:
		fmt.Fprintf(w, "removed turnback hooks for %s: deleted %s, which held nothing else\n", r.Agent.Name, path)
	case r.Remove && r.Changed:
		fmt.Fprintf(w, "removed turnback hooks for %s from %s\n", r.Agent.Name, path)
	case r.Remove:
		fmt.Fprintf(w, "%s has no turnback hooks; nothing changed\n", path)
	case r.Changed:
		fmt.Fprintf(w, "added turnback hooks for %s to %s\n", r.Agent.Name, path)
	default:
		fmt.Fprintf(w, "%s already has turnback's hooks; nothing changed\n", path)
	}
	if r.Agent.Trust != "" && r.Changed && !r.Remove {
		fmt.Fprintln(w, r.Agent.Trust)
	}
	if r.Agent.UndoHow != "" && r.Changed && !r.Remove {
		fmt.Fprintln(w, r.Agent.UndoHow)
	}
	if r.OffPath && r.Changed {
		fmt.Fprintf(w, "turnback is not on PATH: the hooks run %s (run init again if you move it)\n", termout.SafeText(r.Command))
	}
	if r.Commands != nil {
		r.Commands.Report(w)
	}
	for _, p := range r.CommandsRemoved {
		fmt.Fprintf(w, "removed the turnback command /%s: deleted %s\n", commandName(p), termout.QuotePath(p))
	}
}

// Chosen returns the one agent whose flag (init --NAME) is set; an error
// that names the flags otherwise.
func Chosen(flags map[*Agent]*bool) (*Agent, error) {
	var names, given []string
	var a *Agent
	for _, x := range all {
		names = append(names, "--"+x.Name)
		if *flags[x] {
			a, given = x, append(given, "turnback init --"+x.Name)
		}
	}
	switch len(given) {
	case 0:
		return nil, errors.New("say which agent: " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1])
	case 1:
		return a, nil
	}
	return nil, errors.New("one agent per init: run " + strings.Join(given, ", then "))
}

// Command is the command line the agent's hooks run: "turnback hook
// NAME", or this executable by its absolute path when turnback is not
// on PATH ("" when that cannot be run).
func (a *Agent) Command() string {
	c, _, _ := a.command()
	return c
}

// Install merges turnback's hook (running command) for every event of
// the agent into its settings file in dir, and returns the file's path
// and whether it changed (Init with the command given).
func (a *Agent) Install(dir, command string) (path string, changed bool, err error) {
	path = filepath.Join(dir, filepath.FromSlash(a.Settings))
	changed, err = a.install(path, command)
	return path, changed, err
}
