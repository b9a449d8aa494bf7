package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/envopt"
	"github.com/turnback/turnback/cmd/turnback/termout"
	daemons "github.com/turnback/turnback/internal/daemon"
	"github.com/turnback/turnback/watch/daemon"
)

// globals are the flags every command takes.
type globals struct {
	dir      string
	store    string
	session  string
	json     bool
	force    bool
	stdout   io.Writer
	stderr   io.Writer
	progress *termout.Progress

	// What the process was given.
	args    []string
	getenv  func(string) string
	cwd     string // "" means os.Getwd
	stdin   io.Reader
	outTTY  bool // stdout is a terminal
	errTTY  bool // stderr is a terminal
	loc     *time.Location
	local   *daemons.Local   // set when this process opened the store itself
	agent   string           // the hook's agent (turnback.Options.Agent)
	noted   bool             // the "using session" note was printed
	own     string           // the agent's own command run (inagent.go): "undo", "redo", "turns"
	ownCode int              // its outcome as an exit code (it exits 0)
	opts    turnback.Options // how openRepo opened the store (Session: as given)
}

// location is the time zone to print times in: the client's.
func (g *globals) location() *time.Location {
	switch {
	case g.loc != nil:
	default:
		g.loc = time.Local
	}
	return g.loc
}

// getwd returns the directory the command was started in.
func (g *globals) getwd() (string, error) {
	if g.cwd != "" {
		return g.cwd, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("turnback: current directory: %w", err)
	}
	return wd, nil
}

// locate finds the work tree and store directory of a command (both
// absolute), and its session ("" for the default).
func (g *globals) locate() (workTree, storeDir, session string, err error) {
	session = g.session
	if session == "" {
		session = g.getenv("TURNBACK_SESSION")
	}
	if session != "" {
		if err := turnback.ValidSession(session); err != nil {
			return "", "", "", usageError{err}
		}
	}
	wd, err := g.getwd()
	if err != nil {
		return "", "", "", err
	}
	if d := g.ownProjectDir(); d != "" {
		wd = d
	}
	workTree, storeDir, err = envopt.Locate(wd, g.dir, g.store, g.getenv)
	return workTree, storeDir, session, err
}

// withRepo runs fn with the command's Repo, opened with access (see
// openRepo), and closes it after. Every command that works on a store
// goes through it.
func (g *globals) withRepo(cmd *cobra.Command, access turnback.Access, fn func(repo *turnback.Repo) error) error {
	repo, err := g.openRepo(cmd, access)
	if err != nil {
		return err
	}
	defer repo.Close()
	view, err := g.pickSession(cmd, repo)
	if err != nil {
		return err
	}
	// A daemon picking the session says it is ambiguous in the answer
	// to the command's first request.
	return g.ambiguous(fn(view))
}

// pickInDaemon: a served command that names no session has the daemon
// pick it in its first request (turnback.Repo.PickLatest) rather than
// ask for the session list first. A variable for the speed test.
var pickInDaemon = true

// pickSession returns the Repo a command works on: repo, or a view of it
// on the session that the name given stands for (a unique prefix, see
// turnback.Repo.FindSession) or, for a command that uses a session's
// turns (usesTurns: also any command given @N) given none, on the session
// of the folder's newest turn when "default" has none
// (turnback.Repo.LatestSession; said on stderr). An ambiguous name, or,
// for a command that changes files, another session with a turn open
// right now, is exit 2 listing them. A command run for
// an agent (--agent) takes its session as named.
func (g *globals) pickSession(cmd *cobra.Command, repo *turnback.Repo) (*turnback.Repo, error) {
	ctx, pick := cmd.Context(), repo.Session()
	var err error
	switch name := g.opts.Session; {
	case g.agent != "" && g.own != "": // an agent's /undo (inagent.go)
		pick, err = g.ownSession(ctx, repo)
	case g.agent != "": // an agent names its session exactly
	case name != "":
		pick, err = repo.FindSession(ctx, name)
	case usesTurns(cmd):
		note := func(s turnback.SessionInfo) {
			if s.Name != pick && !g.noted {
				g.noted = true // once, also when status runs twice (a full disk)
				fmt.Fprintln(g.stderr, termout.UsingSession(s, envopt.Now(g.getenv)))
			}
		}
		if repo.Served() && pickInDaemon && !remoteTurns(cmd) {
			o := g.opts
			o.Session = pick
			return repo.PickLatest(ctx, o, readsTurns(cmd), note)
		}
		var s turnback.SessionInfo
		s, err = repo.LatestSession(ctx)
		if errors.As(err, new(*turnback.AmbiguousSessionError)) && (readsTurns(cmd) || remoteReads(cmd)) {
			err = nil // reading never refuses: log shows every recent session
		}
		if err == nil {
			note(s)
		}
		pick = s.Name
	}
	if err = g.ambiguous(err); err != nil || pick == repo.Session() {
		return repo, err
	}
	o := g.opts
	o.Session = pick
	return repo.View(o)
}

// ambiguous makes an ambiguous session (two live sessions to pick from,
// or a name several start with) exit 2 listing them; other errors stay
// as they are.
func (g *globals) ambiguous(err error) error {
	var ae *turnback.AmbiguousSessionError
	if errors.As(err, &ae) {
		return codedError{exitUsage, docError{errors.New(termout.AmbiguousSession(ae, envopt.Now(g.getenv))),
			map[string]any{"sessions": termout.SessionDocs(ae.Sessions)}}}
	}
	return err
}

// usesTurns: what cmd does depends on its session's turns: undo, redo,
// log, end; status and diff without ids (since the last snapshot); show
// (the turns at the id) and restore (its checkpoint's place among them).
func usesTurns(cmd *cobra.Command) bool {
	if p := cmd.Parent(); p != nil && p.Name() == "remote" {
		return false // remote show is not show
	}
	if remoteTurns(cmd) {
		return true
	}
	n := cmd.Name()
	return strings.Contains(" undo redo log end status show restore ", " "+n+" ") || n == "diff" && cmd.Flags().NArg() == 0 ||
		slices.ContainsFunc(cmd.Flags().Args(), turnback.IsTurnRef) // @N as log numbers it
}

// print writes a command's outcome: doc with --json, else what human
// prints.
func (g *globals) print(doc any, human func()) error {
	if g.json {
		termout.WriteJSON(g.stdout, doc)
	} else {
		human()
	}
	return nil
}

// docError is an error whose --json document carries doc besides
// "error" and "exit_code".
type docError struct {
	err error
	doc map[string]any
}

func (e docError) Error() string { return e.err.Error() }
func (e docError) Unwrap() error { return e.err }

// openRepo locates the work tree and opens its store for a command:
// read-write (turnback.AccessWrite), read-only (turnback.AccessRead),
// or, for status, read-only only when it cannot be written
// (turnback.AccessReadPreferWrite). When a watch daemon serves the
// store, the Repo runs its methods there (turnback.Open), and the
// command prints their results here as it would its own.
func (g *globals) openRepo(cmd *cobra.Command, access turnback.Access) (*turnback.Repo, error) {
	ctx := cmd.Context()
	workTree, storeDir, opts, err := g.options(cmd, access)
	if err != nil {
		return nil, err
	}
	opts.Progress = progressCounters(g)
	if g.progress != nil {
		opts.RestoreProgress = g.progress.Restore
	}
	g.opts = opts
	if !daemon.Answers(storeDir) {
		// Counters for the auto-start's Early (package daemons), which watches this process's
		// capture. With a daemon, counters nobody shows would only cost
		// each request the progress stream (~0.4 ms).
		opts.Progress = daemons.Counted(opts.Progress)
	}
	// A daemon that serves the store, or starts while Open waits for
	// it, runs the methods.
	repo, err := turnback.Open(ctx, workTree, opts)
	if err != nil || repo.Served() {
		return repo, err
	}
	if storeDir != "" {
		// Holding the store, this process knows no daemon runs: a socket
		// left by one that was killed goes.
		daemon.RemoveStaleSocket(storeDir)
	}
	g.noteLogDamage(cmd, repo)
	if !repo.ReadOnly() {
		g.local = daemons.NewLocal(repo.WorkTree(), repo.StoreDir())
		g.local.Early(cmd.Name(), g.getenv, g.force, opts.Progress, repo)
	}
	return repo, nil
}

// options locates the work tree and store of a command and makes the
// Options it opens them with (see openRepo), but its progress.
func (g *globals) options(cmd *cobra.Command, access turnback.Access) (workTree, storeDir string, opts turnback.Options, err error) {
	workTree, storeDir, session, err := g.locate()
	if err != nil {
		return "", "", opts, err
	}
	opts = turnback.Options{
		Store:    storeDir,
		Session:  session,
		Force:    g.force,
		Access:   access,
		WriteNow: cmd.Name() == "gc" && (cmd.Flags().Lookup("dry-run") == nil || cmd.Flags().Lookup("dry-run").Value.String() != "true"),
		Holder:   "turnback " + cmd.Name() + " in " + workTree,
		OnWait: func(holder string) {
			fmt.Fprintf(g.stderr, "turnback: waiting for the store, held by %s\n", termout.SafeText(holder))
		},
		Agent: g.agent,
		// recover may roll back what Open would otherwise finish, and
		// works on a store whose write log is damaged: it keeps what
		// checks out, as verify --repair does, and says so. A daemon
		// serving the store opened it already: it finished what it
		// found, and would not have opened a damaged log.
		DeferRecovery: cmd.Name() == "recover",
		Salvage:       cmd.Name() == "recover",
	}
	if err := envopt.Apply(g.getenv, &opts); err != nil {
		return "", "", opts, usageError{err}
	}
	if _, err := daemons.Files(g.getenv); err != nil {
		return "", "", opts, usageError{err}
	}
	return workTree, storeDir, opts, nil
}

// useColor reports whether output should be coloured: stdout is a
// terminal, no --json, NO_COLOR unset and TERM not "dumb".
func (g *globals) useColor() bool {
	if g.json || g.getenv("NO_COLOR") != "" || g.getenv("TERM") == "dumb" {
		return false
	}
	return g.outTTY
}

// endProgress stops the progress line, if any.
func (g *globals) endProgress() {
	if g.progress != nil {
		g.progress.Stop()
		g.progress = nil
	}
}

// autoWatch starts a watch daemon for the folder the command captured
// (g.local, nil when a daemon ran the command), if the auto-start's
// rules ask for one. It never fails the command.
func (g *globals) autoWatch() {
	if err := daemons.Start(g.local, g.getenv, g.force); err != nil {
		fmt.Fprintf(g.stderr, "turnback: warning: could not start a watch daemon (TURNBACK_AUTO_WATCH=0 stops trying): %v\n", err)
		return
	}
	// Said once per store, to a person at a terminal: never in --json,
	// an agent's hook or an agent's own command.
	if g.errTTY && !g.json && g.agent == "" && g.own == "" {
		if line := daemons.Announce(g.local); line != "" {
			fmt.Fprint(g.stderr, line)
		}
	}
}

// progressCounters starts the progress line of a command (see
// termout.Progress), only when stderr is a terminal.
func progressCounters(g *globals) *turnback.Progress {
	if !g.errTTY {
		return nil
	}
	g.progress = termout.StartProgress(g.stderr)
	return g.progress.Counters
}
