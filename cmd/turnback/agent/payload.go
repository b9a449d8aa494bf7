package agent

import (
	"encoding/json"
	"slices"
	"strings"
)

// PayloadError: the hook's stdin does not hold a payload the agent
// sends.
type PayloadError struct{ Err error }

func (e *PayloadError) Error() string {
	return "agent: the event on stdin is not JSON: " + e.Err.Error()
}
func (e *PayloadError) Unwrap() error { return e.Err }

// payload is a hook payload read by the one normaliser every agent
// shares: each field the agents send, under every name one of them
// spells it. A field of another JSON type than the one expected counts
// as absent.
type payload struct {
	fields map[string]json.RawMessage
}

func readPayload(data []byte) (payload, error) {
	var p payload
	if err := json.Unmarshal(data, &p.fields); err != nil {
		return p, &PayloadError{Err: err}
	}
	return p, nil
}

// str is the first of keys whose value is a non-empty string.
func (p payload) str(keys ...string) string {
	for _, k := range keys {
		var s string
		if json.Unmarshal(p.fields[k], &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// has reports whether the payload has key with a string value.
func (p payload) has(key string) bool {
	var s string
	return json.Unmarshal(p.fields[key], &s) == nil
}

// first is the first string of the first of keys that is a list of
// strings.
func (p payload) first(keys ...string) string {
	for _, k := range keys {
		var l []string
		if json.Unmarshal(p.fields[k], &l) == nil && len(l) > 0 && l[0] != "" {
			return l[0]
		}
	}
	return ""
}

// event normalises the payload: the event's name, the session id
// (session_id, sessionId, conversation_id, taskId), the folder (cwd,
// else the first of workspace_roots, workspaceRoots) and the prompt.
func (p payload) event() Event {
	ev := Event{
		Name:    p.str("hook_event_name", "hookEventName"),
		Session: p.str("session_id", "sessionId", "conversation_id", "taskId"),
		Cwd:     p.str("cwd"),
		Prompt:  p.str("prompt"),
	}
	if ev.Cwd == "" {
		ev.Cwd = p.first("workspace_roots", "workspaceRoots")
	}
	return ev
}

// classify sets the action of ev: events in snap start a turn, those
// in end end it.
func classify(ev Event, snap, end []string) Event {
	switch {
	case slices.Contains(snap, ev.Name):
		ev.Action = Snap
	case slices.Contains(end, ev.Name):
		ev.Action = End
	}
	return ev
}

// parseCommon returns the parser of a payload that names its event
// (hook_event_name, Claude Code's shape): events in snap start a turn,
// those in end end it.
func parseCommon(snap, end []string) func([]byte) (Event, error) {
	return func(data []byte) (Event, error) {
		p, err := readPayload(data)
		if err != nil {
			return Event{}, err
		}
		return classify(p.event(), snap, end), nil
	}
}

// blank reports a prompt with nothing but white space.
func blank(s string) bool { return strings.TrimSpace(s) == "" }
