package termout

import (
	"testing"
	"time"

	"github.com/turnback/turnback"
)

// TestAgo and the session notes: how long ago, in the CLI's words.
func TestAgo(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for d, want := range map[time.Duration]string{
		-time.Hour: "just now", 0: "just now", 59 * time.Second: "just now", time.Minute: "1 min ago",
		2*time.Minute + 59*time.Second: "2 min ago", 59 * time.Minute: "59 min ago", time.Hour: "1 h ago",
		47 * time.Hour: "47 h ago", 48 * time.Hour: "2 days ago", 30 * 24 * time.Hour: "30 days ago",
	} {
		if got := Ago(now.Add(-d), now); got != want {
			t.Errorf("Ago(%v before) = %q, want %q", d, got, want)
		}
	}
	s := turnback.SessionInfo{Name: "4f1c2a7e-8b3d-4c2e-9f1a-0123456789ab", Short: "4f1c2a7e", Agent: "claude", LastTurn: now.Add(-2 * time.Minute)}
	if got := UsingSession(s, now); got != "using session 4f1c2a7e (claude, last turn 2 min ago)" {
		t.Errorf("UsingSession: %q", got)
	}
	s = turnback.SessionInfo{Name: "a\"b", Short: "a\"b", LastTurn: now}
	if got := UsingSession(s, now); got != `using session "a\"b" (last turn just now)` {
		t.Errorf("UsingSession without an agent: %q", got)
	}
}
