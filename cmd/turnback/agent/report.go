package agent

import (
	"fmt"
	"io"
	"strings"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

// The wording of turnback's own commands run inside an agent (/undo,
// /redo, /turns). Every outcome is a report on stdout, and its next
// steps are the commands the user types in the agent, never a shell's
// flags: the user reads it, and the model is told to pass it on.

// OwnName is the own command a CLI command stands for inside an agent:
// "turns" for log, else the command itself.
func OwnName(cli string) string {
	if cli == "log" {
		return "turns"
	}
	return cli
}

// Slash is an own command as the user types it in the agent a:
// "/undo --merge" ("/tb-undo --merge" in OpenCode). A nil a is an agent
// with the plain names.
func (a *Agent) Slash(own string, args ...string) string {
	prefix := ""
	if a != nil {
		prefix = a.cmdPrefix
	}
	return strings.Join(append([]string{"/" + prefix + own}, args...), " ")
}

// MergeArg is the --merge argument among args ("" for none).
func MergeArg(args []string) string {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--merge" || strings.HasPrefix(a, "--merge=") {
			return a
		}
	}
	return ""
}

// Conflict writes the report of an undo or redo (own) that changed
// nothing because the user edited paths it would change since: the
// paths, then the commands that go on. args are the command's (a
// refused --merge suggests --merge=markers).
func (a *Agent) Conflict(w io.Writer, own string, args []string, r *turnback.RestoreResult) {
	what := "these files were"
	if len(r.Conflicts) == 1 {
		what = "this file was"
	}
	others := 0
	for _, c := range r.Conflicts {
		if c.ByOtherSession() {
			others++
		}
	}
	why := "edited after the turn (by you or a program)"
	switch {
	case own == "redo":
		why = "edited since the undo (by you or a program)"
	case others == len(r.Conflicts):
		why = "also changed by another conversation's turn that ran at the same time"
	case others > 0:
		why = "edited after the turn (by you, a program or another conversation)"
	}
	fmt.Fprintf(w, "%s changed nothing: %s %s, and %s would overwrite the edits:\n", a.Slash(own), what, why, own)
	for _, n := range r.Conflicts {
		fmt.Fprintf(w, "  %s: %s\n", termout.QuotePath(n.Path), termout.SafeText(n.Reason))
	}
	fmt.Fprintln(w, "The edits are kept. To go on, type one of:")
	if own == "undo" {
		switch merge := MergeArg(args); {
		case others == len(r.Conflicts):
			// A merge meets the same turns: only --force goes on.
		case merge == "":
			fmt.Fprintf(w, "  %s   take back the turn's changes and keep the edits (text files)\n", a.Slash(own, "--merge"))
		case merge == "--merge", merge == "--merge=clean":
			fmt.Fprintf(w, "  %s   merge anyway, with conflict markers where the turn and the edits overlap\n", a.Slash(own, "--merge=markers"))
		}
	}
	back := ""
	if own == "undo" {
		back = " (" + a.Slash("redo") + " brings them back)"
	}
	fmt.Fprintf(w, "  %s   %s anyway: the edits stay in a checkpoint%s\n", a.Slash(own, "--force"), own, back)
	fmt.Fprintf(w, "  %s   list the turns\n", a.Slash("turns"))
}

// Done is the line after the report of an undo or redo (own) that
// changed the files: the command that takes it back.
func (a *Agent) Done(own string) string {
	if own == "redo" {
		return a.Slash("undo") + " takes it back again."
	}
	return a.Slash("redo") + " brings it back."
}

// Busy is what follows the message of an own command that found the
// store held by another turnback.
func (a *Agent) Busy(own string) string {
	return fmt.Sprintf("Nothing was changed: another turnback command was using this folder's store. Type %s again in a moment.", a.Slash(own))
}

// Usage is what follows the message of an own command given wrong
// arguments.
func (a *Agent) Usage(own string) string {
	return fmt.Sprintf("Type %s, %s N (the last N turns), %s --merge, %s --force, %s, or %s.",
		a.Slash("undo"), a.Slash("undo"), a.Slash("undo"), a.Slash("undo"), a.Slash("redo"), a.Slash("turns"))
}

// OtherSession is the note of an own command run in a conversation
// without turns, which works on the folder's newest session instead;
// using is that session's termout.UsingSession note.
func OtherSession(using string) string {
	return "this conversation has no turns: " + using + ", the session of the folder's newest turn"
}

// WhichSession is the report of an own command run in a conversation
// without turns when another conversation may be working on the folder
// right now (a session has a turn open): sessions names each with its
// note, the newest first, and the command that picks one; first is the
// first one's short name.
func (a *Agent) WhichSession(own string, sessions []string, first string) string {
	return fmt.Sprintf("Nothing was changed: this conversation has no turns, and another one may be working on this folder right now, so %s does not guess. Sessions with turns: %s. Type %s (a unique start of the name is enough) to work on one.",
		a.Slash(own), strings.Join(sessions, ", "), a.Slash(own, "--session", first))
}
