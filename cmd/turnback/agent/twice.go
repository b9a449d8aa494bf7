package agent

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/turnback/turnback"
)

// twiceWindow is how long after a turn began a prompt event with the
// same prompt counts as the agent's second run of the prompt hook. The
// second run may wait for the first one's lock, up to a hook's timeout.
const twiceWindow = time.Minute

// secondFiring: for an agent that runs its prompt hook twice for one
// prompt (promptTwice), a snap whose prompt opened the session's open
// turn within twiceWindow is that second run. It keeps the turn open,
// whatever the agent changed meanwhile, and records nothing; the result
// says so (Kept). Otherwise it returns nil and the hook snaps.
func (a *Agent) secondFiring(ctx context.Context, repo *turnback.Repo, ev Event) (*turnback.SnapResult, error) {
	msg := promptLine(ev.Prompt)
	if !a.promptTwice || msg == "" {
		return nil, nil
	}
	turns, _, err := repo.Turns(ctx)
	if err != nil {
		return nil, fmt.Errorf("agent: %s prompt hook: read the session's turns: %w", a.Name, err)
	}
	if len(turns) == 0 {
		return nil, nil
	}
	t := turns[len(turns)-1]
	for _, u := range turns {
		if u.N > t.N {
			t = u
		}
	}
	if !t.Open() || t.Message != msg || time.Since(t.Started) > twiceWindow || time.Since(t.Started) < -twiceWindow {
		return nil, nil
	}
	return &turnback.SnapResult{Session: t.Session, Turn: t.N, Kept: true}, nil
}

// promptLine is the message a snap keeps of a prompt: its first line,
// trimmed, at most 500 bytes (as the store does).
func promptLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if len(s) > 500 {
		s = s[:500]
	}
	return s
}
