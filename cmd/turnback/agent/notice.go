package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

// TellModel reports whether a prompt hook tells the model what undo and
// redo changed: always, unless TURNBACK_TELL_MODEL is "0".
func TellModel(getenv func(string) string) bool {
	return getenv("TURNBACK_TELL_MODEL") != "0"
}

// noticePaths is how many paths the text names in all; the rest are
// counted.
const noticePaths = turnback.NoticePaths

// NoticeText is what the model is told of a notice: each undo and redo
// with its turns, and the paths they changed (at most 20 in all, then a
// count). Paths are quoted as everywhere else (termout.QuotePath), so a
// name cannot break the text.
func NoticeText(n *turnback.Notice) string {
	if n == nil || len(n.Entries) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("turnback: since the last prompt the user reverted file changes with turnback:\n")
	left := noticePaths
	for _, e := range n.Entries {
		verb := "undid"
		if e.Op == "redo" {
			verb = "redid"
		}
		var turns []string
		for _, t := range e.Turns {
			turns = append(turns, fmt.Sprint(t))
		}
		fmt.Fprintf(&b, "- %s turn%s %s:", verb, termout.Plural(len(e.Turns)), strings.Join(turns, ", "))
		shown := e.Paths[:min(left, len(e.Paths))]
		for i, p := range shown {
			sep := ","
			if i == 0 {
				sep = ""
			}
			fmt.Fprintf(&b, "%s %s", sep, termout.QuotePath(p))
		}
		left -= len(shown)
		if more := e.More + len(e.Paths) - len(shown); more > 0 {
			if len(shown) > 0 {
				b.WriteString(" and")
			}
			fmt.Fprintf(&b, " %d more path%s", more, termout.Plural(more))
		}
		if len(e.Paths)+e.More == 0 {
			b.WriteString(" no path changed")
		}
		b.WriteString("\n")
	}
	b.WriteString("These files may no longer hold what you wrote or read: read them again before relying on them.")
	return b.String()
}

// Output is the prompt hook's stdout that gives the model text, as
// Claude Code, Gemini CLI and Codex read it:
// {"hookSpecificOutput":{"hookEventName":EVENT,"additionalContext":TEXT}}.
func Output(event, text string) []byte { return output(event, text, "") }

// output is Output, with user (when not "") shown to the user as the
// hook's systemMessage.
func output(event, text, user string) []byte {
	type specific struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(struct {
		SystemMessage      string   `json:"systemMessage,omitempty"`
		HookSpecificOutput specific `json:"hookSpecificOutput"`
	}{user, specific{event, text}})
	return buf.Bytes()
}

// DecodeNotice reads the notice from the --json document of the snap
// --take-notice a watch daemon ran for the hook (nil: none, or not such
// a document).
func DecodeNotice(doc []byte) *turnback.Notice {
	var d struct {
		Notice *turnback.Notice `json:"notice"`
	}
	if json.Unmarshal(doc, &d) != nil {
		return nil
	}
	return d.Notice
}

// Tell is the prompt hook's stdout for ev after its snap took notice:
// the text that tells the model what undo and redo changed, when the
// agent takes such text and TURNBACK_TELL_MODEL allows it; nil otherwise.
func (a *Agent) Tell(ev Event, notice *turnback.Notice, getenv func(string) string) []byte {
	text := NoticeText(notice)
	if text == "" || !a.Context || !TellModel(getenv) {
		return nil
	}
	return Output(ev.Name, text)
}

// DroppedNote is what the end hook says on stderr after end's --json
// document doc (a watch daemon's) or result res: for a turn dropped
// although skipped paths changed, which and why; "" otherwise.
func DroppedNote(doc []byte, res *turnback.SnapResult) string {
	if res != nil {
		if !res.Dropped || res.Closed == nil || len(res.IgnoredChanged) == 0 {
			return ""
		}
		return "turnback: " + termout.DroppedWhy(res.Closed.N, res.IgnoredChanged)
	}
	var d termout.SnapJSON
	if json.Unmarshal(doc, &d) != nil || len(d.IgnoredChanged) == 0 {
		return ""
	}
	return "turnback: " + d.Message
}

// Skip reports a hook that skipped its work (the agent goes on): warning
// on stderr, logged in hook.log of store.
func (a *Agent) Skip(stderr io.Writer, store, warning string, logged error) {
	fmt.Fprintf(stderr, "turnback: warning: %s\n", warning)
	a.Log(store, logged)
}

// Capture is the hook's snap or end of ev on repo. A snap of an agent
// that takes text for the model (Context) also takes the session's
// notice of undo and redo (SnapResult.Notice).
func (a *Agent) Capture(ctx context.Context, repo *turnback.Repo, ev Event) (*turnback.SnapResult, error) {
	if ev.Action == Snap {
		if res, err := a.secondFiring(ctx, repo, ev); res != nil || err != nil {
			return res, err
		}
		return repo.SnapNotice(ctx, ev.Prompt, a.Context)
	}
	return repo.End(ctx)
}
