package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/turnback/turnback"
)

// Folder is the work tree the UI shows and how to open its store. Each
// operation opens the store, runs and closes it: the UI never holds the
// store between keys, so hooks and commands run while it is open.
type Folder struct {
	WorkTree string
	// Options are those of turnback.Open (Store, size limits, ...);
	// Session, Access and Local are set per operation.
	Options turnback.Options

	mu sync.Mutex // one operation at a time: one process, one hold
}

// read runs fn on a read-only Repo of session.
func (f *Folder) read(ctx context.Context, session string, fn func(*turnback.Repo) error) error {
	return f.with(ctx, session, turnback.AccessRead, fn)
}

// write runs fn on a writable Repo of session (undo, redo, restore).
func (f *Folder) write(ctx context.Context, session string, fn func(*turnback.Repo) error) error {
	return f.with(ctx, session, turnback.AccessWrite, fn)
}

func (f *Folder) with(ctx context.Context, session string, access turnback.Access, fn func(*turnback.Repo) error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	o := f.Options
	o.Session, o.Access, o.Local = session, access, false
	o.WriteNow = access == turnback.AccessWrite
	if o.Holder == "" {
		o.Holder = "turnback ui in " + f.WorkTree
	}
	repo, err := turnback.Open(ctx, f.WorkTree, o)
	if err != nil {
		return err
	}
	defer repo.Close()
	return fn(repo)
}

// stamp is a cheap signature of the store directory: the names, sizes
// and modification times of its files. A command that records anything
// changes it; equal stamps let a poll skip reading the store.
func (f *Folder) stamp() string {
	dir := f.Options.Store
	if dir == "" {
		var err error
		if dir, err = turnback.DefaultStoreDir(f.WorkTree); err != nil {
			return ""
		}
	}
	var parts []string
	for _, d := range []string{dir, filepath.Join(dir, "db")} {
		ents, err := os.ReadDir(d)
		if err != nil {
			parts = append(parts, d+":"+err.Error())
			continue
		}
		for _, e := range ents {
			fi, err := e.Info()
			if err != nil {
				continue
			}
			parts = append(parts, fmt.Sprintf("%s/%s:%d:%d", d, e.Name(), fi.Size(), fi.ModTime().UnixNano()))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, "\n")
}

// sessionData is one session with its turns.
type sessionData struct {
	info  turnback.SessionInfo
	turns []*turnback.Turn // the undo stack, newest first
	redo  []*turnback.Turn // undone turns, newest first
	lost  map[int][]string // per turn: changes an undo cannot revert
}

// timeline is what the UI loaded from the store.
type timeline struct {
	sessions    []sessionData
	checkpoints []turnback.Checkpoint // newest first
	served      bool
	// noCheckpoints says why checkpoints could not be listed ("" when
	// they were).
	noCheckpoints string
	loaded        time.Time
}

// loadTimeline reads the sessions to show (names; nil: every session)
// and their turns.
func loadTimeline(ctx context.Context, f *Folder, names []string) (*timeline, error) {
	tl := &timeline{}
	err := f.read(ctx, turnback.DefaultSession, func(repo *turnback.Repo) error {
		tl.served = repo.Served()
		list, err := repo.Sessions(ctx)
		if err != nil {
			return err
		}
		byName := map[string]turnback.SessionInfo{}
		for _, s := range list {
			byName[s.Name] = s
		}
		var pick []turnback.SessionInfo
		if names == nil {
			pick = list
		} else {
			for _, n := range names {
				s, ok := byName[n]
				if !ok {
					s = turnback.SessionInfo{Name: n, Short: n}
				}
				pick = append(pick, s)
			}
		}
		for _, s := range pick {
			view, err := repo.View(viewOptions(f, repo, s.Name))
			if err != nil {
				return err
			}
			sd := sessionData{info: s}
			if sd.turns, sd.redo, err = view.Turns(ctx); err != nil {
				return err
			}
			tl.sessions = append(tl.sessions, sd)
		}
		cps, err := repo.Checkpoints(ctx)
		if err != nil {
			tl.noCheckpoints = err.Error()
		}
		tl.checkpoints = cps
		return nil
	})
	tl.loaded = time.Now()
	return tl, err
}

// viewOptions are the options of a view of repo on session.
func viewOptions(f *Folder, repo *turnback.Repo, session string) turnback.Options {
	o := f.Options
	o.Session, o.Access = session, turnback.AccessRead
	return o
}

// loadLost finds, per session and turn of tl, the changes an undo
// cannot revert (Repo.UnprotectedChanges: it reads every turn's trees,
// so the timeline is shown first and its marks follow). A daemon does
// not run it for others: none for a served folder.
func loadLost(ctx context.Context, f *Folder, tl *timeline) (map[string]map[int][]string, error) {
	out := map[string]map[int][]string{}
	err := f.read(ctx, turnback.DefaultSession, func(repo *turnback.Repo) error {
		if repo.Served() {
			return nil
		}
		for _, s := range tl.sessions {
			view, err := repo.View(viewOptions(f, repo, s.info.Name))
			if err != nil {
				return err
			}
			all := append(append([]*turnback.Turn{}, s.turns...), s.redo...)
			if out[s.info.Name], err = view.UnprotectedChanges(ctx, all); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}
