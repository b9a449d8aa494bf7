package turnback

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
)

// Session ids as agents make them (UUIDs), two of them sharing 8
// characters.
const (
	tsClaude = "4f1c2a7e-8b3d-4c2e-9f1a-0123456789ab"
	tsGemini = "4f1c2a7f-0000-4000-8000-000000000001"
	tsCodex  = "9d2e0b11-1111-4111-8111-111111111111"
)

var tsNow = time.Date(2026, 11, 22, 10, 30, 0, 0, time.UTC)

// tsInfo is a session with turns (undo, redo) whose last turn was ago
// before tsNow (ago < 0: no turn at all).
func tsInfo(name string, turns, redo int, ago time.Duration) SessionInfo {
	s := SessionInfo{Name: name, Turns: turns, Redo: redo}
	if ago >= 0 {
		s.LastTurn = tsNow.Add(-ago)
	}
	return s
}

// tsOpen is a session whose newest turn, started ago before tsNow, is
// open.
func tsOpen(name string, turns int, ago time.Duration) SessionInfo {
	s := tsInfo(name, turns, 0, ago)
	s.Open = true
	return s
}

func tsNames(list []SessionInfo) []string {
	var out []string
	for _, s := range list {
		out = append(out, s.Name)
	}
	return out
}

// TestFindSession: an exact name wins, a unique prefix finds its
// session, an ambiguous one lists every candidate, and a name that
// matches nothing stays as given.
func TestFindSession(t *testing.T) {
	t.Parallel()
	list := []SessionInfo{
		tsInfo(tsClaude, 1, 0, time.Minute), tsInfo(tsGemini, 1, 0, 2*time.Minute),
		tsInfo(tsCodex, 1, 0, time.Hour), tsInfo("agent", 1, 0, 3*time.Hour),
		tsInfo("agent-1", 1, 0, 4*time.Hour), tsInfo(DefaultSession, 0, 0, -1),
	}
	for _, c := range []struct {
		name, want string
		ambiguous  []string
	}{
		{name: tsClaude, want: tsClaude},
		{name: "4f1c2a7e", want: tsClaude},
		{name: "4f1c2a7f", want: tsGemini},
		{name: "9", want: tsCodex},
		{name: "4f1c", ambiguous: []string{tsClaude, tsGemini}},
		{name: "4", ambiguous: []string{tsClaude, tsGemini}},
		{name: "agent", want: "agent"}, // exact, though agent-1 starts with it too
		{name: "agent-", want: "agent-1"},
		{name: "ag", ambiguous: []string{"agent", "agent-1"}},
		{name: "def", want: DefaultSession},
		{name: DefaultSession, want: DefaultSession},
		{name: "new-session", want: "new-session"}, // matches nothing: a new one
		{name: "4f1c2a7e-8b3d-4c2e-9f1a-0123456789abc", want: "4f1c2a7e-8b3d-4c2e-9f1a-0123456789abc"},
	} {
		got, err := findSession(list, c.name)
		if c.ambiguous != nil {
			var ae *AmbiguousSessionError
			if !errors.As(err, &ae) || !errors.Is(err, ErrAmbiguousSession) || ae.Name != c.name ||
				!reflect.DeepEqual(tsNames(ae.Sessions), c.ambiguous) {
				t.Errorf("findSession(%q) = %q, %v; want ambiguous among %q", c.name, got, err, c.ambiguous)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("findSession(%q) = %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}

// TestLatestSession: the fallback of a command that names no session.
func TestLatestSession(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		what      string
		list      []SessionInfo // sorted as Sessions sorts
		want      string
		ambiguous []string
	}{
		{what: "empty store", want: DefaultSession},
		{what: "only default, no turns", list: []SessionInfo{tsInfo(DefaultSession, 0, 0, -1)}, want: DefaultSession},
		{what: "default has turns: it wins over a newer session",
			list: []SessionInfo{tsInfo(tsClaude, 2, 0, time.Minute), tsInfo(DefaultSession, 1, 0, 48*time.Hour)}, want: DefaultSession},
		{what: "default has only turns to redo: it wins",
			list: []SessionInfo{tsInfo(tsClaude, 2, 0, time.Minute), tsInfo(DefaultSession, 0, 1, time.Hour)}, want: DefaultSession},
		{what: "default has no turns: the newest turn's session",
			list: []SessionInfo{tsInfo(tsClaude, 2, 0, 2*time.Minute), tsInfo(DefaultSession, 0, 0, -1)}, want: tsClaude},
		{what: "a session whose turns are all undone is still found (redo)",
			list: []SessionInfo{tsInfo(tsClaude, 0, 1, 2*time.Minute)}, want: tsClaude},
		{what: "a session without turns is skipped",
			list: []SessionInfo{tsInfo(tsGemini, 0, 0, time.Minute), tsInfo(tsClaude, 1, 0, time.Hour)}, want: tsClaude},
		{what: "sessions one after the other: the newest",
			list: []SessionInfo{tsInfo(tsClaude, 1, 0, time.Minute), tsInfo(tsGemini, 3, 0, 2*time.Minute)}, want: tsClaude},
		{what: "none recent: the newest, however close the next",
			list: []SessionInfo{tsInfo(tsClaude, 1, 0, 2*time.Hour), tsInfo(tsGemini, 1, 0, 2*time.Hour+time.Second)}, want: tsClaude},
		{what: "the newest is open, the others closed: the newest",
			list: []SessionInfo{tsOpen(tsGemini, 1, time.Minute), tsInfo(tsClaude, 1, 0, 2*time.Minute)}, want: tsGemini},
		{what: "another has a turn open right now: refused, the pick first",
			list:      []SessionInfo{tsInfo(tsClaude, 1, 0, time.Minute), tsOpen(tsGemini, 1, 9*time.Minute), tsInfo(tsCodex, 1, 0, time.Hour)},
			ambiguous: []string{tsClaude, tsGemini}},
		{what: "two others open: all listed",
			list: []SessionInfo{tsInfo(tsClaude, 0, 1, 0), tsOpen(tsGemini, 2, time.Minute), tsOpen(tsCodex, 1, 5*time.Minute),
				tsInfo(DefaultSession, 0, 0, -1)},
			ambiguous: []string{tsClaude, tsGemini, tsCodex}},
		{what: "default has turns, another is open: refused",
			list: []SessionInfo{tsOpen(tsGemini, 1, time.Minute), tsInfo(DefaultSession, 1, 0, time.Hour)}, ambiguous: []string{DefaultSession, tsGemini}},
		{what: "an open turn older than OpenWindow was abandoned",
			list: []SessionInfo{tsInfo(tsClaude, 1, 0, time.Minute), tsOpen(tsGemini, 1, OpenWindow)}, want: tsClaude},
	} {
		got, err := latestSession(c.list, tsNow)
		if c.ambiguous != nil {
			var ae *AmbiguousSessionError
			if !errors.As(err, &ae) || ae.Name != "" || !reflect.DeepEqual(tsNames(ae.Sessions), c.ambiguous) || got.Name != c.ambiguous[0] {
				t.Errorf("%s: got %q, %v; want ambiguous among %q", c.what, got.Name, err, c.ambiguous)
			}
			continue
		}
		if err != nil || got.Name != c.want {
			t.Errorf("%s: got %q, %v; want %q", c.what, got.Name, err, c.want)
		}
	}
}

// TestSessionShortNames: a long name is shown by its shortest unique
// prefix of at least 8 bytes, which FindSession resolves back to it.
func TestSessionShortNames(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", shortFrom+1)
	list := []SessionInfo{
		{Name: tsClaude}, {Name: tsGemini}, {Name: tsCodex}, {Name: DefaultSession},
		{Name: "a-name-of-exactly-24-byt"}, {Name: long}, {Name: long + "y"},
		{Name: "ééééé-a-long-name-in-utf-8"},
	}
	sortSessions(list)
	want := map[string]string{
		tsClaude: "4f1c2a7e", tsGemini: "4f1c2a7f", tsCodex: "9d2e0b11", DefaultSession: DefaultSession,
		"a-name-of-exactly-24-byt":   "a-name-of-exactly-24-byt",
		long:                         long, // every shorter prefix is also long+"y"'s
		long + "y":                   long + "y",
		"ééééé-a-long-name-in-utf-8": "éééé", // 8 bytes, whole characters
	}
	for _, s := range list {
		if s.Short != want[s.Name] {
			t.Errorf("short of %q = %q, want %q", s.Name, s.Short, want[s.Name])
		}
		if got, err := findSession(list, s.Short); err != nil || got != s.Name {
			t.Errorf("findSession(short %q) = %q, %v; want %q", s.Short, got, err, s.Name)
		}
	}
}

// TestSessionsOfAStore: Sessions, FindSession and LatestSession on a
// real store: agents, counts, times, the open turn, the redo stack, the
// order; and a session record written before agents were recorded reads
// as one without an agent.
func TestSessionsOfAStore(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	base := t.TempDir()
	work, store := filepath.Join(base, "work"), filepath.Join(base, "store")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	clock := tsNow.Add(-time.Hour)
	now := func() time.Time { return clock }
	open := func(session, agent string) *Repo {
		t.Helper()
		r, err := Open(ctx, work, Options{Store: store, Session: session, Agent: agent, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	turn := func(r *Repo, file, msg string, end bool) {
		t.Helper()
		if _, err := r.Snap(ctx, msg); err != nil {
			t.Fatal(err)
		}
		clock = clock.Add(time.Minute)
		if err := os.WriteFile(filepath.Join(work, file), []byte(msg), 0o644); err != nil {
			t.Fatal(err)
		}
		if end {
			if _, err := r.End(ctx); err != nil {
				t.Fatal(err)
			}
		}
		clock = clock.Add(time.Minute)
	}

	r := open(DefaultSession, "")
	if list, err := r.Sessions(ctx); err != nil || len(list) != 0 {
		t.Fatalf("a new store's sessions: %+v, %v", list, err)
	}
	r.Close()

	c := open(tsClaude, "claude")
	turn(c, "a.txt", "first", true)
	turn(c, "b.txt", "second", true)
	if _, err := c.Undo(ctx, 1, UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	g := open(tsGemini, "gemini")
	turn(g, "c.txt", "open one", false) // left open
	g.Close()

	// A session recorded by an earlier turnback (no agent field), with
	// the newest turn: rewrite the claude session's record without it.
	r = open(DefaultSession, "")
	defer r.Close()
	var rec map[string]any
	if _, err := r.getJSON(ctx, []byte(model.PrefixSess+tsClaude), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["agent"] != "claude" {
		t.Fatalf("session record: %v, want agent claude", rec)
	}
	delete(rec, "agent")
	if err := r.backend.Set(ctx, cas.Entry{Key: []byte(model.PrefixSess + tsClaude), Value: model.EncodeJSON(rec)}); err != nil {
		t.Fatal(err)
	}

	list, err := r.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	start := tsNow.Add(-time.Hour)
	want := []SessionInfo{
		{Name: tsGemini, Short: "4f1c2a7f", Agent: "gemini", Turns: 1, Open: true, LastTurn: start.Add(4 * time.Minute), LastMessage: "open one"},
		{Name: tsClaude, Short: "4f1c2a7e", Agent: "", Turns: 1, Redo: 1, LastTurn: start.Add(3 * time.Minute), LastMessage: "second"},
	}
	if !reflect.DeepEqual(list, want) {
		t.Errorf("sessions:\n got %+v\nwant %+v", list, want)
	}
	all, err := r.AllTurns(ctx)
	if err != nil || len(all) != 2 || all[0].SessionInfo != want[0] || all[1].SessionInfo != want[1] ||
		len(all[0].Turns) != 1 || len(all[0].Redo) != 0 || all[0].Turns[0].Message != "open one" ||
		len(all[1].Turns) != 1 || len(all[1].Redo) != 1 || all[1].Turns[0].Message != "first" || all[1].Redo[0].Message != "second" {
		t.Errorf("AllTurns: %+v, %v", all, err)
	}
	if got, err := r.FindSession(ctx, "4f1c2a7e"); err != nil || got != tsClaude {
		t.Errorf("FindSession(4f1c2a7e) = %q, %v", got, err)
	}
	if _, err := r.FindSession(ctx, "4f"); !errors.Is(err, ErrAmbiguousSession) {
		t.Errorf("FindSession(4f): %v, want ambiguous", err)
	}
	if _, err := r.FindSession(ctx, "a/b"); err == nil {
		t.Error("FindSession accepted an invalid name")
	}
	// Gemini's turn is the newest, open: it is the one, right after the
	// turns and an hour later.
	for _, at := range []time.Time{start.Add(5 * time.Minute), tsNow.Add(time.Hour)} {
		clock = at
		if got, err := r.LatestSession(ctx); err != nil || got.Name != tsGemini {
			t.Errorf("LatestSession at %v = %q, %v; want %s", at, got.Name, err, tsGemini)
		}
	}
	// Once the default session has a turn, it is the one; Gemini's turn
	// open right now makes it ambiguous, until it was abandoned.
	clock = start.Add(5 * time.Minute)
	turn(r, "d.txt", "mine", true)
	if got, err := r.LatestSession(ctx); !errors.Is(err, ErrAmbiguousSession) || got.Name != DefaultSession || got.LastMessage != "mine" {
		t.Errorf("LatestSession with default's turn and Gemini's open = %+v, %v; want default, ambiguous", got, err)
	}
	clock = start.Add(OpenWindow + 5*time.Minute)
	if got, err := r.LatestSession(ctx); err != nil || got.Name != DefaultSession {
		t.Errorf("LatestSession after OpenWindow = %+v, %v", got, err)
	}
}
