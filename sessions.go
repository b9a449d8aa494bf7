package turnback

// Finding a session. A store holds one record per session (records.go);
// Sessions summarises them, FindSession turns a name or a unique prefix
// of one into a session's name, and LatestSession picks the session a
// command that names none works on. The rules, in order:
//
//   - A name given exactly is that session, also when other sessions'
//     names start with it. Otherwise the one session whose name starts
//     with it; several are an *AmbiguousSessionError listing them; none
//     leaves the name as given (a session without turns yet, which Snap
//     creates).
//   - With no name: "default" while it has a turn (on its undo or redo
//     stack) or no session has one. Otherwise the session of the store's
//     newest turn. Sessions one after the other are no ambiguity; when
//     another session has a turn open right now (started within
//     OpenWindow), two agents may be working on the folder: the pick
//     comes with an *AmbiguousSessionError listing them, which commands
//     that change files refuse on and reading commands only mention.

import (
	"context"
	"time"

	"github.com/turnback/turnback/internal/model"
)

// ActiveWindow is how recent a session's last turn must be for the
// session to count as recent: log without a session shows every recent
// one.
const ActiveWindow = model.ActiveWindow

// DefaultSession is the session of a Repo opened without a name.
const DefaultSession = model.DefaultSession

// shortFrom: names longer are shown by a short form (model.SortSessions).
const shortFrom = model.ShortFrom

// hasTurns reports whether the session has a turn to undo or redo.
func hasTurns(s SessionInfo) bool { return model.HasTurns(s) }

// Sessions lists the store's sessions, the most recently active (by
// LastTurn) first, then by name. A store without sessions gives none.
func (r *Repo) Sessions(ctx context.Context) ([]SessionInfo, error) { return r.be.Sessions(ctx) }

func (l localRepo) Sessions(ctx context.Context) ([]SessionInfo, error) {
	r := l.r
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	return r.sessionInfos(ctx)
}

// FindSession returns the name of the session name refers to: the
// session of exactly that name, else the one session whose name starts
// with it, else name itself (a session with no turns yet). When several
// sessions' names start with it, the error is an *AmbiguousSessionError
// listing them.
func (r *Repo) FindSession(ctx context.Context, name string) (string, error) {
	if err := ValidSession(name); err != nil {
		return "", err
	}
	return r.be.FindSession(ctx, name)
}

func (l localRepo) FindSession(ctx context.Context, name string) (string, error) {
	r := l.r
	if err := r.lock(ctx); err != nil {
		return "", err
	}
	defer r.unlock()
	if ok, err := r.getJSON(ctx, []byte(model.PrefixSess+name), &model.SessionRecord{}); err != nil || ok {
		return name, err
	}
	list, err := r.sessionInfos(ctx)
	if err != nil {
		return "", err
	}
	return findSession(list, name)
}

// LatestSession returns the session an operation that names none works
// on: DefaultSession while it has a turn to undo or redo (or no session
// has one), otherwise the session of the store's newest turn. When
// another session has a turn open right now (SessionInfo.Working, at
// Options.Now), the error is an *AmbiguousSessionError listing the pick
// first, then those sessions; the pick is returned with it, for an
// operation that only reads.
func (r *Repo) LatestSession(ctx context.Context) (SessionInfo, error) {
	return r.be.LatestSession(ctx)
}

func (l localRepo) LatestSession(ctx context.Context) (SessionInfo, error) {
	r := l.r
	if err := r.lock(ctx); err != nil {
		return SessionInfo{}, err
	}
	defer r.unlock()
	list, err := r.sessionInfos(ctx)
	if err != nil {
		return SessionInfo{}, err
	}
	return latestSession(list, r.now())
}

// sessionInfos summarises every session record, sorted as Sessions
// returns them.
func (r *Repo) sessionInfos(ctx context.Context) ([]SessionInfo, error) {
	recs, err := r.sessions(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]SessionInfo, 0, len(recs))
	for _, s := range recs {
		info := SessionInfo{Name: s.Name, Agent: s.Agent, Turns: len(s.Turns), RedoCleared: s.RedoCleared, RedoClearedBy: s.RedoClearedBy}
		newest := 0
		if n := len(s.Turns); n > 0 {
			newest = s.Turns[n-1]
		}
		for _, g := range s.Redo {
			info.Redo += len(g.Turns)
			for _, n := range g.Turns {
				newest = max(newest, n)
			}
		}
		if newest > 0 {
			t, err := r.loadTurn(ctx, s.Name, newest)
			if err != nil {
				return nil, err
			}
			info.LastTurn, info.LastMessage, info.Open = t.Started, t.Message, t.Open()
			if t.Ended.After(t.Started) {
				info.LastTurn = t.Ended
			}
		}
		out = append(out, info)
	}
	sortSessions(out)
	return out, nil
}

// sortSessions orders list newest LastTurn first, then by name, and
// fills in the short names.
func sortSessions(list []SessionInfo) { model.SortSessions(list) }

// findSession applies FindSession's rule to list.
func findSession(list []SessionInfo, name string) (string, error) {
	return model.FindSession(list, name)
}

// latestSession applies LatestSession's rule to list (sorted as
// Sessions returns it) at now.
func latestSession(list []SessionInfo, now time.Time) (SessionInfo, error) {
	return model.LatestSession(list, now)
}

// now is the Repo's clock (Options.Now), in UTC.
func (r *Repo) now() time.Time {
	if r.opts.Now != nil {
		return r.opts.Now().UTC()
	}
	return time.Now().UTC()
}
