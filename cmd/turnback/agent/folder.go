package agent

import (
	"os"
	"path/filepath"

	"github.com/turnback/turnback"
)

// Env is what a hook knows of where it runs: its environment, its
// directory and the flags it was given ("" when not given).
type Env struct {
	Getenv  func(string) string
	Getwd   func() (string, error)
	Dir     string // -C
	Store   string // --store
	Session string // --session
	Force   bool   // --force
}

// Folder finds the work tree of a hook event without -C: it starts at
// the agent's project directory (the first of ProjectEnv set) or,
// without one, the event's cwd, and takes the nearest folder from there
// up that already has a store (as every other command does from a
// subdirectory), so a hook run from a subfolder records into the
// folder's store instead of making a second one. With no store found,
// the start folder is the work tree (its store is created by the snap).
// An ancestor that is / or the home directory is only taken with
// --force: opening it would be refused, and the hook would record
// nothing. It returns the start folder and the work tree; an empty
// start means the event names no folder.
func (a *Agent) Folder(ev Event, env Env) (start, workTree string) {
	for _, v := range a.ProjectEnv {
		if d := env.Getenv(v); d != "" {
			start = d
			break
		}
	}
	if start == "" {
		start = ev.Cwd
	}
	if start == "" {
		return "", ""
	}
	if !filepath.IsAbs(start) {
		if wd, err := env.Getwd(); err == nil {
			start = filepath.Join(wd, start)
		}
	}
	wt, _, err := turnback.Locate(start, env.Store)
	if err != nil {
		return start, start // opening it reports what is wrong with it
	}
	if !env.Force && wt != start && isScopeRefused(wt) {
		return start, start
	}
	return start, wt
}

// isScopeRefused reports a folder turnback refuses without --force: the
// filesystem root or the home directory.
func isScopeRefused(dir string) bool {
	if filepath.Dir(dir) == dir {
		return true
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return false
	}
	h, err := filepath.EvalSymlinks(home)
	return err == nil && h == dir
}

// refusedFolder reports whether dir, made absolute and symlink-free, is a
// folder turnback refuses without --force.
func refusedFolder(dir string) bool {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	real, err := filepath.EvalSymlinks(abs)
	return err == nil && isScopeRefused(real)
}
