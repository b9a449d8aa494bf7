package agent

import (
	"encoding/json"
	"slices"
)

// PayloadError: the hook's stdin does not hold a payload the agent
// sends.
type PayloadError struct{ Err error }

func (e *PayloadError) Error() string {
	return "agent: the event on stdin is not JSON: " + e.Err.Error()
}
func (e *PayloadError) Unwrap() error { return e.Err }

// commonPayload is the hook payload of the agents that follow Claude
// Code's shape: the event's name, the session id, the working directory
// and, when a prompt is submitted, the prompt.
type commonPayload struct {
	SessionID string `json:"session_id"`
	Cwd       string `json:"cwd"`
	Event     string `json:"hook_event_name"`
	Prompt    string `json:"prompt"`
}

// parseCommon returns the parser of a payload of that shape: events in
// snap start a turn, those in end end it.
func parseCommon(snap, end []string) func([]byte) (Event, error) {
	return func(data []byte) (Event, error) {
		var p commonPayload
		if err := json.Unmarshal(data, &p); err != nil {
			return Event{}, &PayloadError{Err: err}
		}
		ev := Event{Name: p.Event, Session: p.SessionID, Cwd: p.Cwd, Prompt: p.Prompt}
		switch {
		case slices.Contains(snap, p.Event):
			ev.Action = Snap
		case slices.Contains(end, p.Event):
			ev.Action = End
		}
		return ev, nil
	}
}
