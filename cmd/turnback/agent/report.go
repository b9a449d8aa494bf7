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

// Slash is an own command as the user types it: "/undo --merge".
func Slash(own string, args ...string) string {
	return strings.Join(append([]string{"/" + own}, args...), " ")
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
func Conflict(w io.Writer, own string, args []string, r *turnback.RestoreResult) {
	since := "after the turn"
	if own == "redo" {
		since = "since the undo"
	}
	what := "these files were"
	if len(r.Conflicts) == 1 {
		what = "this file was"
	}
	fmt.Fprintf(w, "%s changed nothing: %s edited %s (by you or a program), and %s would overwrite the edits:\n", Slash(own), what, since, own)
	for _, n := range r.Conflicts {
		fmt.Fprintf(w, "  %s: %s\n", termout.QuotePath(n.Path), termout.SafeText(n.Reason))
	}
	fmt.Fprintln(w, "The edits are kept. To go on, type one of:")
	if own == "undo" {
		switch MergeArg(args) {
		case "":
			fmt.Fprintf(w, "  %s   take back the turn's changes and keep the edits (text files)\n", Slash(own, "--merge"))
		case "--merge", "--merge=clean":
			fmt.Fprintf(w, "  %s   merge anyway, with conflict markers where the turn and the edits overlap\n", Slash(own, "--merge=markers"))
		}
	}
	back := ""
	if own == "undo" {
		back = " (" + Slash("redo") + " brings them back)"
	}
	fmt.Fprintf(w, "  %s   %s anyway: the edits stay in a checkpoint%s\n", Slash(own, "--force"), own, back)
	fmt.Fprintf(w, "  %s   list the turns\n", Slash("turns"))
}

// Done is the line after the report of an undo or redo (own) that
// changed the files: the command that takes it back.
func Done(own string) string {
	if own == "redo" {
		return Slash("undo") + " takes it back again."
	}
	return Slash("redo") + " brings it back."
}

// Busy is what follows the message of an own command that found the
// store held by another turnback.
func Busy(own string) string {
	return fmt.Sprintf("Nothing was changed: another turnback command was using this folder's store. Type %s again in a moment.", Slash(own))
}

// Usage is what follows the message of an own command given wrong
// arguments.
func Usage(own string) string {
	return fmt.Sprintf("Type %s, %s N (the last N turns), %s --merge, %s --force, %s, or %s.",
		Slash("undo"), Slash("undo"), Slash("undo"), Slash("undo"), Slash("redo"), Slash("turns"))
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
func WhichSession(own string, sessions []string, first string) string {
	return fmt.Sprintf("Nothing was changed: this conversation has no turns, and another one may be working on this folder right now, so %s does not guess. Sessions with turns: %s. Type %s (a unique start of the name is enough) to work on one.",
		Slash(own), strings.Join(sessions, ", "), Slash(own, "--session", first))
}
