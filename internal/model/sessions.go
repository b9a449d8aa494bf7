package model

// The rules that find a session in a list of sessions (the root's
// Sessions, or a remote's heads): see the root's sessions.go.

import (
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/turnback/turnback/internal/sessname"
)

// ActiveWindow is how recent a session's last turn must be for the
// session to count as recent: log without a session shows every recent
// one.
const ActiveWindow = 10 * time.Minute

// DefaultSession is the session of a Repo opened without a name.
const DefaultSession = "default"

// Session names are shown to people by a short form when they are
// longer than ShortFrom bytes: the shortest prefix of at least shortMin
// bytes that no other session's name starts with (an agent's session id
// is a 36-character UUID; its first 8 characters usually do).
const (
	ShortFrom = 24
	shortMin  = 8
)

// HasTurns reports whether the session has a turn to undo or redo.
func HasTurns(s SessionInfo) bool { return s.Turns+s.Redo > 0 }

// SortSessions orders list newest LastTurn first, then by name, and
// fills in the short names.
func SortSessions(list []SessionInfo) {
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if !a.LastTurn.Equal(b.LastTurn) {
			return a.LastTurn.After(b.LastTurn)
		}
		return a.Name < b.Name
	})
	for i := range list {
		list[i].Short = shortName(list, list[i].Name)
	}
}

// shortName is name's short form among the sessions of list (see
// SessionInfo.Short).
func shortName(list []SessionInfo, name string) string {
	if len(name) <= ShortFrom {
		return name
	}
	for n := shortMin; n < len(name); n++ {
		if !utf8.RuneStart(name[n]) {
			continue // a prefix ends on a whole character
		}
		if p := name[:n]; matches(list, p) == 1 {
			return p
		}
	}
	return name
}

// matches counts the sessions of list whose name starts with prefix.
func matches(list []SessionInfo, prefix string) int {
	n := 0
	for _, s := range list {
		if strings.HasPrefix(s.Name, prefix) {
			n++
		}
	}
	return n
}

// FindSession applies the root's FindSession rule to list.
func FindSession(list []SessionInfo, name string) (string, error) {
	var found []SessionInfo
	for _, s := range list {
		if sessname.Check(s.Name) != nil {
			continue // made before the rule: it cannot be opened
		}
		if s.Name == name {
			return name, nil
		}
		if strings.HasPrefix(s.Name, name) {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		return name, nil
	case 1:
		return found[0].Name, nil
	}
	return "", &AmbiguousSessionError{Name: name, Sessions: found}
}

// LatestSession applies the root's LatestSession rule to list (sorted as
// the root's Sessions returns it) at now.
func LatestSession(list []SessionInfo, now time.Time) (SessionInfo, error) {
	pick := SessionInfo{Name: DefaultSession, Short: DefaultSession}
	var newest *SessionInfo
	for i, s := range list {
		switch {
		case sessname.Check(s.Name) != nil: // made before the rule: it cannot be opened
		case s.Name == DefaultSession && !HasTurns(s):
			pick = s
		case s.Name == DefaultSession:
			newest = &list[i]
		case HasTurns(s) && newest == nil:
			newest = &list[i]
		}
		if newest != nil && newest.Name == DefaultSession {
			break // default has turns: it is the one
		}
	}
	if newest == nil {
		return pick, nil
	}
	pick = *newest
	working := []SessionInfo{pick}
	for _, s := range list {
		if s.Name != pick.Name && sessname.Check(s.Name) == nil && s.Working(now) {
			working = append(working, s)
		}
	}
	if len(working) > 1 {
		return pick, &AmbiguousSessionError{Sessions: working}
	}
	return pick, nil
}
