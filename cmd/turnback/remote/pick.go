package remote

import (
	"context"
	"errors"
	"fmt"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas/s3"
	"github.com/turnback/turnback/cmd/turnback/envopt"
	"github.com/turnback/turnback/cmd/turnback/termout"
	"github.com/turnback/turnback/internal/exchange"
	s3remote "github.com/turnback/turnback/internal/remote"
)

// Which session pull and clone work on: the rule of every command
// (exchange.MatchSession, exchange.NewestSession), applied to the
// remote's sessions too.
//
//   - pull --session NAME: NAME among the store's sessions and the
//     remote's, as one list (a unique prefix is enough).
//   - pull: the session the command was given (the folder's newest
//     turn's, picked with its note as for every command); when the
//     store has no turn, the remote's session of the newest turn.
//   - clone --session NAME: NAME among the remote's sessions; clone
//     alone: the remote's session of the newest turn, said on stderr.

// errNoRemoteSessions: the remote has no session to pick.
var errNoRemoteSessions = errors.New("turnback: the remote has no sessions")

// pullSession returns the session pull brings in: repo's (already
// picked) unless named, or unless the store has no turn.
func (e *Env) pullSession(ctx context.Context, repo *turnback.Repo, c *s3.Client) (string, error) {
	name := e.Session()
	if err := e.checkName(name); err != nil {
		return "", err
	}
	local, err := repo.Sessions(ctx)
	if err != nil {
		return "", err
	}
	if name == "" {
		for _, s := range local {
			if s.Turns+s.Redo > 0 {
				return repo.Session(), nil
			}
		}
	}
	remote, err := s3remote.Sessions(ctx, c)
	if err != nil {
		return "", err
	}
	if name != "" {
		list := s3remote.SessionInfos(remote)
		for _, s := range local {
			if !hasSession(list, s.Name) {
				list = append(list, s)
			}
		}
		return exchange.MatchSession(list, name)
	}
	s, err := e.newestRemote(remote, c)
	return s.Name, err
}

// cloneSession returns the remote's session clone copies.
func (e *Env) cloneSession(ctx context.Context, c *s3.Client) (string, error) {
	if err := e.checkName(e.Session()); err != nil {
		return "", err
	}
	remote, err := s3remote.Sessions(ctx, c)
	if err != nil {
		return "", err
	}
	if name := e.Session(); name != "" {
		return exchange.MatchSession(s3remote.SessionInfos(remote), name)
	}
	s, err := e.newestRemote(remote, c)
	return s.Name, err
}

// checkName refuses a --session NAME no session can have, as a usage
// error and before the remote is asked.
func (e *Env) checkName(name string) error {
	if name == "" {
		return nil
	}
	if err := turnback.ValidSession(name); err != nil {
		return e.Usage(err)
	}
	return nil
}

// newestRemote picks the remote's session of the newest turn and says
// so on stderr. Sessions working at once are no reason to refuse: the
// folder is not changed (a clone's is empty).
func (e *Env) newestRemote(remote []s3remote.Session, c *s3.Client) (turnback.SessionInfo, error) {
	if len(remote) == 0 {
		return turnback.SessionInfo{}, fmt.Errorf("%w (s3://%s/%s): push one first", errNoRemoteSessions, c.Bucket, c.Prefix)
	}
	now := envopt.Now(e.Getenv)
	s, err := exchange.NewestSession(s3remote.SessionInfos(remote), now)
	if err != nil && !errors.As(err, new(*turnback.AmbiguousSessionError)) {
		return s, err
	}
	fmt.Fprintln(e.Stderr, "using the remote's session "+termout.AboutSession(s, now))
	return s, nil
}

func hasSession(list []turnback.SessionInfo, name string) bool {
	for _, s := range list {
		if s.Name == name {
			return true
		}
	}
	return false
}
