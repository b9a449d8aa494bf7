package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/turnback/turnback/cmd/turnback/termout"
)

// Commands are the slash commands init installs next to the hooks:
// /undo and /redo run turnback undo and redo for the conversation's own
// session, /turns runs turnback log.
var Commands = []string{"undo", "redo", "turns"}

// cliCommand is the turnback command a slash command runs.
func cliCommand(name string) string {
	if name == "turns" {
		return "log"
	}
	return name
}

// commandSummary is what a slash command's description says.
var commandSummary = map[string]string{
	"undo":  "Undo the file changes of this conversation's last turn (turnback; /undo N: the last N)",
	"redo":  "Redo the last undone turn of this conversation (turnback; /redo N: N turns)",
	"turns": "List this conversation's turns, newest first (turnback)",
}

// commandAsk is what a command asks of the model, after turnback's
// report.
func commandAsk(name string) string { return (*Agent)(nil).commandAsk(name) }

// commandAsk is the package's commandAsk in agent a's command names.
func (a *Agent) commandAsk(name string) string {
	if name == "turns" {
		return "The report above is turnback's list of the turns (" + a.Slash("turns") + "). Show it to the user as it is; do not change any files for it."
	}
	return "The user ran " + a.Slash(name) + ": the report above is turnback's, which changed the files, or says why it changed nothing (not you). " +
		"Tell the user in a sentence or two what it did; when it names commands to go on (such as " + a.Slash(name, "--force") + "), " +
		"name them as written: the user types them here. Do not change any files for it and do not run them yourself."
}

// commandMark is in every command file init writes: a file of the same
// name without it is the user's, and init leaves it alone.
const commandMark = "written by turnback init"

// OwnCommand reports whether a prompt is one of turnback's own commands
// (/undo, /redo, /turns, with or without arguments) and returns its name
// and arguments. Such a prompt starts no turn: a snap would record
// nothing of the agent's and, before this rule, cleared the redo stack.
func OwnCommand(prompt string) (name string, args []string, ok bool) {
	line, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	f := strings.Fields(line)
	if len(f) == 0 {
		return "", nil, false
	}
	for _, c := range Commands {
		if f[0] == "/"+c {
			return c, f[1:], true
		}
	}
	return "", nil, false
}

// CommandArgs is the turnback command line (without the global flags)
// an own command stands for.
func CommandArgs(name string, args []string) []string {
	return append([]string{cliCommand(name)}, args...)
}

// CommandsResult is what InstallCommands did: the command files it
// wrote, those of an earlier init it brought up to date, and those it
// left alone because they are the user's.
type CommandsResult struct {
	Written []string `json:"written"`
	Updated []string `json:"updated"`
	Skipped []string `json:"skipped"`
}

// InstallCommands writes the agent's slash commands into its command
// directory in dir; command is the hook's command line (Command), whose
// turnback binary they run. A file that is already there is left as it
// is when it is turnback's own (it carries commandMark) as init writes
// it now, and rewritten when an earlier init wrote it otherwise
// (Updated); another is the user's and is listed in Skipped.
func (a *Agent) InstallCommands(dir, command string) (CommandsResult, error) {
	if a.CommandDir == "" {
		return a.installCommands("", command)
	}
	return a.installCommands(filepath.Join(dir, filepath.FromSlash(a.CommandDir)), command)
}

// installCommands is InstallCommands into the command directory cdir
// ("": the agent has none).
func (a *Agent) installCommands(cdir, command string) (CommandsResult, error) {
	res := CommandsResult{Written: []string{}, Updated: []string{}, Skipped: []string{}}
	if cdir == "" {
		return res, nil
	}
	_, err := os.Lstat(cdir)
	made := errors.Is(err, os.ErrNotExist)
	for _, name := range Commands {
		file, data := a.commandFile(name, a.Bin(command))
		if made {
			data = madeDir(data)
		}
		path := filepath.Join(cdir, file)
		old, rerr := os.ReadFile(path)
		switch {
		case rerr == nil && bytes.Contains(old, []byte(commandMark)):
			if !made && bytes.Contains(old, []byte(dirMark)) {
				data = madeDir(data) // the folder stays init's
			}
			if bytes.Equal(old, data) {
				continue
			}
			if err := replaceFile(path, data); err != nil {
				return res, fmt.Errorf("turnback init: %w", err)
			}
			res.Updated = append(res.Updated, path)
			continue
		case rerr == nil:
			res.Skipped = append(res.Skipped, path)
			continue
		case !errors.Is(rerr, os.ErrNotExist):
			return res, fmt.Errorf("turnback init: %w", rerr)
		}
		if err := writeNew(path, data); err != nil {
			return res, fmt.Errorf("turnback init: %w", err)
		}
		res.Written = append(res.Written, path)
	}
	return res, nil
}

// dirMark is in the command files of an init that made their directory:
// removal deletes the directory only then (when empty), never one that
// was there before, empty or not.
const dirMark = "# turnback init made this folder\n"

// madeDir adds dirMark to a command file's content, after its first line
// (a comment line in both formats, or Claude Code's "---").
func madeDir(data []byte) []byte {
	i := bytes.IndexByte(data, '\n') + 1
	return append(append(append([]byte{}, data[:i]...), dirMark...), data[i:]...)
}

// removeCommands deletes the command files init wrote (those with
// commandMark) from the command directory cdir, and returns their
// paths; a file without the mark is the user's and stays. The
// directory goes too when that leaves it empty and a file said init
// made it (dirMark).
func (a *Agent) removeCommands(cdir string) ([]string, error) {
	var removed []string
	if cdir == "" {
		return removed, nil
	}
	made := false
	for _, name := range Commands {
		file, _ := a.commandFile(name, "")
		path := filepath.Join(cdir, file)
		old, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) || err == nil && !bytes.Contains(old, []byte(commandMark)) {
			continue
		}
		if err == nil {
			made = made || bytes.Contains(old, []byte(dirMark))
			err = os.Remove(path)
		}
		if err == nil && filepath.Dir(path) != cdir {
			os.Remove(filepath.Dir(path)) // a skill's own folder, only if empty
		}
		if err != nil {
			return removed, fmt.Errorf("turnback init: %w", err)
		}
		removed = append(removed, path)
	}
	if made {
		os.Remove(cdir) // only if empty
	}
	return removed, nil
}

// commandName is the slash command a command file stands for.
func commandName(path string) string {
	if filepath.Base(path) == "SKILL.md" { // a skill: its folder's name
		return filepath.Base(filepath.Dir(path))
	}
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

// writeNew creates path with data; a file made meanwhile is not
// overwritten (O_EXCL), and a failed write leaves no file.
func writeNew(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// replaceFile replaces path with data, all or nothing: a temporary
// file beside it, renamed over it.
func replaceFile(path string, data []byte) error {
	tmp := path + ".turnback-tmp"
	if err := writeNew(tmp, data); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// Report prints what InstallCommands did, for people.
func (r CommandsResult) Report(w io.Writer) {
	for _, p := range r.Written {
		fmt.Fprintf(w, "added the turnback command /%s: %s\n", commandName(p), termout.QuotePath(p))
	}
	for _, p := range r.Updated {
		fmt.Fprintf(w, "updated the turnback command /%s: %s\n", commandName(p), termout.QuotePath(p))
	}
	for _, p := range r.Skipped {
		fmt.Fprintf(w, "left %s as it is (not turnback's): /%s runs it, not turnback\n", termout.QuotePath(p), commandName(p))
	}
}

// Bin is the turnback binary a hook command line runs (Command without
// " hook NAME").
func (a *Agent) Bin(command string) string {
	return strings.TrimSuffix(command, " hook "+a.Name)
}
