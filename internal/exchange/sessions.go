package exchange

// Sessions kept elsewhere (a remote's heads): the session rules of
// sessions.go applied to a list the caller made, so push, pull and clone
// find a session by the rule every other command uses.

import (
	"slices"
	"time"

	"github.com/turnback/turnback/internal/model"
)

// SessionOf summarises session from its records as ExportSessions makes
// them (a copy kept elsewhere), as Sessions summarises a store's. Records
// that do not decode wrap cas.ErrCorrupt.
func SessionOf(session string, recs []Record) (model.SessionInfo, error) {
	sess, turns, _, err := parseSessionRecords(session, recs)
	if err != nil {
		return model.SessionInfo{}, err
	}
	info := model.SessionInfo{Name: sess.Name, Short: sess.Name, Agent: sess.Agent, Turns: len(sess.Turns),
		RedoCleared: sess.RedoCleared, RedoClearedBy: sess.RedoClearedBy}
	newest := 0
	if n := len(sess.Turns); n > 0 {
		newest = sess.Turns[n-1]
	}
	for _, g := range sess.Redo {
		info.Redo += len(g.Turns)
		for _, n := range g.Turns {
			newest = max(newest, n)
		}
	}
	if t := turns[newest]; t != nil {
		info.LastTurn, info.LastMessage, info.Open = t.Started, t.Message, t.Open()
		if t.Ended.After(t.Started) {
			info.LastTurn = t.Ended
		}
	}
	return info, nil
}

// SortSessions orders list as Sessions does (newest LastTurn first,
// then by name) and fills in the short names among them.
func SortSessions(list []model.SessionInfo) { model.SortSessions(list) }

// MatchSession applies FindSession's rule to list: the session named
// exactly, else the one whose name starts with name, else name itself;
// several are an *AmbiguousSessionError.
func MatchSession(list []model.SessionInfo, name string) (string, error) {
	if err := validSession(name); err != nil {
		return "", err
	}
	return model.FindSession(list, name)
}

// NewestSession applies LatestSession's rule to list at now: the
// session an operation that names none works on.
func NewestSession(list []model.SessionInfo, now time.Time) (model.SessionInfo, error) {
	list = slices.Clone(list)
	model.SortSessions(list)
	return model.LatestSession(list, now.UTC())
}
