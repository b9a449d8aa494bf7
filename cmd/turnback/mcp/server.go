package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/envopt"
	"github.com/turnback/turnback/cmd/turnback/termout"
	"github.com/turnback/turnback/watch/daemon"
)

// Config is what the server was started with: the command's flags and
// surroundings. Tool calls that name no folder use Dir (-C) or, without
// it, the working directory Cwd.
type Config struct {
	Cwd     string // the server's working directory ("": the process's)
	Dir     string // -C: the work tree, exactly ("": find it from Cwd)
	Store   string // --store ("": TURNBACK_STORE or the default)
	Session string // --session ("": TURNBACK_SESSION, else none named)
	Getenv  func(string) string
	Version string // reported to the client
}

// ErrDaemon: a watch daemon serves the folder and holds its store, which
// this server cannot use while it runs (the error says how to stop it).
var ErrDaemon = errors.New("turnback mcp: a watch daemon holds the folder's store")

// ErrNoStore: undo or redo in a folder turnback has recorded nothing in.
var ErrNoStore = errors.New("turnback mcp: no turns are recorded for this folder")

// ErrUnknownSession: a session argument names no session of the folder.
var ErrUnknownSession = errors.New("turnback mcp: unknown session")

// Command is "turnback mcp": it serves on stdin and stdout (Serve) with
// the configuration config returns when it runs (the parsed flags).
func Command(config func() Config) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve turnback's tools to an agent over MCP (stdio)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return Serve(cmd.Context(), &LineTransport{In: cmd.InOrStdin(), Out: cmd.OutOrStdout()}, config())
		},
	}
}

// Serve runs the server on t until the client goes away or ctx ends.
func Serve(ctx context.Context, t sdk.Transport, c Config) error {
	s, err := NewServer(c)
	if err != nil {
		return err
	}
	err = s.Run(ctx, t)
	if err == nil || ctx.Err() != nil || errors.Is(err, sdk.ErrConnectionClosed) {
		return nil
	}
	return fmt.Errorf("turnback mcp: %w", err)
}

// NewServer returns the server with every tool (tools.go), for c with
// its defaults filled in.
func NewServer(c Config) (*sdk.Server, error) {
	if c.Getenv == nil {
		c.Getenv = os.Getenv
	}
	if c.Session == "" {
		c.Session = c.Getenv("TURNBACK_SESSION")
	}
	if c.Cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("turnback mcp: current directory: %w", err)
		}
		c.Cwd = wd
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "turnback", Title: "turnback", Version: c.Version}, &sdk.ServerOptions{
		Instructions: instructions,
	})
	if err := addTools(s, &server{c: c}); err != nil {
		return nil, err
	}
	return s, nil
}

// instructions tell the client's model what the server is for.
const instructions = "turnback records every turn of the coding agent in this folder (the agent's hooks snap before each prompt and end after it). " +
	"Use turnback_turns to list them, turnback_show or turnback_diff to see what one changed, turnback_status for edits since the last turn, " +
	"and turnback_undo / turnback_redo when the user asks to revert or bring back turns. Undo changes only the paths those turns changed; " +
	"it refuses (changing nothing) when a path was edited since, naming it. After an undo or redo, read the paths it lists again before relying on them."

// server carries the configuration to the tool handlers. It holds no
// store between calls: each call opens the folder's store and closes
// it. Calls the client sends at once run one after the other (mu): a
// second Open of a store this process holds would wait for the lock.
type server struct {
	c  Config
	mu sync.Mutex
}

// call is one tool call's open store, on the session it works on.
type call struct {
	repo    *turnback.Repo // the view on the session
	close   func() error
	session turnback.SessionInfo
}

// common are the arguments every tool takes.
type common struct {
	Folder  string
	Session string
}

// locate finds the work tree and store a call works on: the folder
// given (or the nearest folder above it with a store), else the
// server's.
func (s *server) locate(folder string) (workTree, storeDir string, err error) {
	wd, dir, store := s.c.Cwd, s.c.Dir, s.c.Store
	if folder != "" {
		if !filepath.IsAbs(folder) {
			folder = filepath.Join(wd, folder)
		}
		wd, dir, store = folder, "", ""
	} else if dir != "" && !filepath.IsAbs(dir) {
		dir = filepath.Join(wd, dir)
	}
	start := wd
	if dir != "" {
		start = dir
	}
	if fi, err := os.Stat(start); err != nil || !fi.IsDir() {
		return "", "", fmt.Errorf("turnback mcp: folder %s does not exist or is not a directory", termout.QuotePath(start))
	}
	return envopt.Locate(wd, dir, store, s.c.Getenv)
}

// open opens the store of the call's folder with access and picks the
// session (see pick). latest: a call that names no session may work on
// the session of the folder's newest turn, as the CLI's commands do
// (all but a diff between two snapshot ids, which are no session's).
func (s *server) open(ctx context.Context, a common, access turnback.Access, latest bool) (*call, error) {
	name := a.Session
	if name == "" {
		name = s.c.Session
	}
	if name != "" {
		if err := turnback.ValidSession(name); err != nil {
			return nil, err
		}
	}
	workTree, storeDir, err := s.locate(a.Folder)
	if err != nil {
		return nil, err
	}
	if access == turnback.AccessWrite && storeDir != "" {
		// A refused folder (/, the home directory) says so first: it
		// has no store because turnback never records it.
		if err := turnback.CheckLocation(workTree, storeDir, false); errors.Is(err, turnback.ErrScope) {
			return nil, err
		}
		// Undo and redo never create a store.
		if _, err := os.Stat(storeDir); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s has no turnback store (turns are recorded by the agent's hooks: turnback init --AGENT)", ErrNoStore, termout.QuotePath(workTree))
		}
	}
	opts := turnback.Options{Store: storeDir, Access: access,
		Holder: fmt.Sprintf("turnback mcp (pid %d) in %s", os.Getpid(), workTree)}
	if err := envopt.Apply(s.c.Getenv, &opts); err != nil {
		return nil, fmt.Errorf("turnback mcp: %w", err)
	}
	// With a watch daemon, Open goes through it, and the calls wait for
	// other clients' operations there up to opts.LockWait, as they would
	// for another process.
	repo, err := turnback.Open(ctx, workTree, opts)
	if err != nil {
		if errors.Is(err, turnback.ErrBusy) && storeDir != "" {
			if info, ok := daemon.Ping(storeDir); ok {
				return nil, daemonError(info.PID, workTree)
			}
		}
		return nil, err
	}
	c, err := pick(ctx, repo, opts, name, latest, access != turnback.AccessWrite)
	if err != nil {
		repo.Close()
		return nil, err
	}
	return c, nil
}

func daemonError(pid int, workTree string) error {
	return fmt.Errorf("%w (pid %d, watching %s): it holds the store and did not take the call. "+
		"Stop it with `turnback watch --stop` in the folder and call again (TURNBACK_AUTO_WATCH=0 keeps hooks from starting another); "+
		"or run the turnback CLI in a shell, which the daemon serves", ErrDaemon, pid, termout.QuotePath(workTree))
}

// pick returns the call on the session name stands for (a unique
// prefix, see turnback.Repo.FindSession; an unknown one other than
// "default" is an error: these tools never start a session) or, with no name and latest, on
// the session of the folder's newest turn when "default" has none
// (turnback.Repo.LatestSession; a tool that only reads takes it also
// when another session has a turn open right now); otherwise on
// "default".
func pick(ctx context.Context, repo *turnback.Repo, o turnback.Options, name string, latest, reads bool) (*call, error) {
	list, err := repo.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	var chosen string
	switch {
	case name != "":
		known := func(s turnback.SessionInfo) bool { return s.Name == chosen }
		if chosen, err = repo.FindSession(ctx, name); err == nil && chosen != turnback.DefaultSession && !slices.ContainsFunc(list, known) {
			err = fmt.Errorf("%w %q: %s", ErrUnknownSession, name, sessionList(list))
		}
	case latest:
		var info turnback.SessionInfo
		info, err = repo.LatestSession(ctx)
		if errors.As(err, new(*turnback.AmbiguousSessionError)) && reads {
			err = nil
		}
		chosen = info.Name
	default:
		chosen = repo.Session()
	}
	if err != nil {
		return nil, err
	}
	c := &call{repo: repo, close: repo.Close, session: termout.SessionOf(list, chosen)}
	if chosen != repo.Session() {
		o.Session = chosen
		view, err := repo.View(o)
		if err != nil {
			return nil, err
		}
		c.repo = view
	}
	return c, nil
}

// sessionList names the folder's sessions for an error.
func sessionList(list []turnback.SessionInfo) string {
	if len(list) == 0 {
		return "the folder has no sessions"
	}
	var names []string
	for i, s := range list {
		if i == 10 {
			names = append(names, fmt.Sprintf("and %d more", len(list)-i))
			break
		}
		n := s.Name
		if s.Agent != "" {
			n += " (" + s.Agent + ")"
		}
		names = append(names, n)
	}
	return "the folder's sessions are " + strings.Join(names, ", ")
}
