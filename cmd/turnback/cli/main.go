package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/cmd/turnback/agent"
	"github.com/turnback/turnback/cmd/turnback/diag"
	"github.com/turnback/turnback/cmd/turnback/extra"
	"github.com/turnback/turnback/cmd/turnback/help"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

// Exit codes of the CLI contract.
const (
	exitOK       = 0
	exitError    = 1
	exitUsage    = 2
	exitConflict = 3
	exitBusy     = 4
)

// usageError marks a command-line mistake (exit 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// exitError carries a specific exit code with an error already reported.
type codedError struct {
	code int
	err  error
}

func (e codedError) Error() string { return e.err.Error() }
func (e codedError) Unwrap() error { return e.err }

// extras makes the commands only turnback-full has; nil in turnback,
// which hands them to turnback-full (forward.go).
var extras extra.Commands

// Main runs the CLI on os.Args and returns the exit code. cmds makes
// the commands only turnback-full has: nil in turnback.
func Main(cmds extra.Commands) int {
	extras = cmds
	if cmds == nil {
		if code, done := forward(os.Args[1:], os.Stderr); done {
			return code
		}
	}
	diag.TuneGC() // none until 64 MiB, then the usual pacing under a soft cap
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	diag.BoostIO(ctx) // more Ps than CPUs while reading from the disk
	stopProfile := diag.StartCPUProfile(os.Getenv("TURNBACK_CPUPROFILE"), os.Stderr)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stopProfile()
	stop()
	diag.ReportPeakRSS(os.Stderr)
	return code
}

// run executes the CLI and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	g := &globals{stdout: stdout, stderr: stderr, args: args, getenv: os.Getenv, stdin: os.Stdin,
		outTTY: termout.IsTerminal(stdout), errTTY: termout.IsTerminal(stderr)}
	return execute(ctx, g)
}

// execute runs the command g.args with g's streams and environment.
func execute(ctx context.Context, g *globals) int {
	args := g.args
	root := newRootCmd(g)
	if g.own = ownCommand(root, args); g.own != "" {
		g.stderr = g.stdout // one report, in order (inagent.go)
	}
	stopPager := g.startPager(root, args) // diff, log, show on a terminal (pager.go)
	if g.errTTY && g.own == "" {
		g.stderr = termout.WarnColorWriter(g.stderr, g.useColorErr) // "warning" in colour
	}
	root.SetArgs(args)
	root.SetOut(g.stdout)
	root.SetErr(g.stderr)
	root.SetIn(g.stdin)
	err := root.ExecuteContext(ctx)
	stopPager()
	if err == nil {
		g.autoWatch()
	} else {
		g.local.Abandon() // a daemon it started early goes
	}
	// Commands that end without stopping their progress line (an error,
	// or one that never captures) must not leave its goroutine behind: a
	// daemon runs many commands.
	g.endProgress()
	if err == nil {
		return exitOK
	}
	if g.own != "" {
		g.ownFailure(err)
		g.ownCode = exitCode(err) // said in the report; the process exits 0
		return exitOK
	}
	if errors.As(err, new(reported)) {
		return exitCode(err) // the command said it
	}
	stdout, stderr := g.stdout, g.stderr
	code := exitCode(err)
	if code == exitUsage && !g.json {
		// A usage error can stop flag parsing before --json is seen.
		g.json = termout.WantsJSON(args)
	}
	var stopped *turnback.DaemonStoppedError
	if errors.As(err, &stopped) && err == error(stopped) {
		err = stopped.Err // its own message, then the daemon's (below)
	}
	// The hint is the CLI's own text, printed as it is: the message is
	// made safe for a terminal (Failure) and may not begin a line.
	msg, more := err.Error(), hint(err)
	var noSpace *cas.NoSpaceError
	if errors.As(err, &noSpace) {
		// The contract's message, whatever step ran out of space.
		msg, more = "turnback: "+noSpace.Error(), ""
	}
	if !strings.HasPrefix(msg, "turnback") {
		msg = "turnback: " + msg
	}
	var hf agent.Failure
	var de docError // an error whose document says more
	errors.As(err, &de)
	termout.Failure(stdout, stderr, msg, more, code, de.doc, g.json && !errors.As(err, &hf), code == exitUsage) // a hook's stdout is the agent's
	switch {
	case stopped != nil:
		fmt.Fprintf(stderr, "turnback: the watch daemon is stopping (%s): it cancelled this command\n", termout.SafeText(stopped.Why))
	case errors.Is(err, turnback.ErrDaemonLost):
		fmt.Fprintln(stderr, "turnback: an interrupted undo, redo or restore is finished or rolled back by the next command")
	}
	return code
}

func exitCode(err error) int {
	var ue usageError
	var ce codedError
	switch {
	case errors.As(err, &ce):
		return ce.code
	case errors.As(err, &ue), errors.Is(err, turnback.ErrBadRef), errors.Is(err, turnback.ErrBadSession):
		return exitUsage
	case errors.Is(err, turnback.ErrBusy):
		return exitBusy
	case errors.Is(err, turnback.ErrDiverged): // a pull that would lose local state: nothing changed
		return exitConflict
	}
	return exitError
}

func newRootCmd(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:           "turnback [-C DIR] [--store DIR] [--session NAME] [--json] COMMAND [ARGS]",
		Short:         "Per-turn undo and redo of every file change in a folder",
		SilenceErrors: true,
		SilenceUsage:  true,
		// Runnable, so that an unknown command reaches Args (a usage
		// error, exit 2) instead of cobra's plain error.
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	pf := root.PersistentFlags()
	pf.StringVarP(&g.dir, "dir", "C", "", "work tree (default: the current directory, or the nearest ancestor with a store)")
	pf.StringVar(&g.store, "store", "", "store directory (default: $TURNBACK_STORE or the per-folder default)")
	pf.StringVar(&g.session, "session", "", "session name or a unique prefix of one: an independent stack of turns (default: $TURNBACK_SESSION or \"default\"; see sessions)")
	pf.StringVar(&g.agent, "agent", "", "run for an agent's hook (claude, gemini, ...): record it on the session snap starts, take --session exactly")
	pf.BoolVar(&g.json, "json", false, "print exactly one JSON document on stdout")
	pf.BoolVar(&g.force, "force", false, "proceed where turnback would refuse: undo/redo over edits made outside the turns (they stay recoverable), a work tree that is / or the home directory")
	root.AddCommand(
		newSnapCmd(g), newEndCmd(g), newStatusCmd(g), newLogCmd(g), newSessionsCmd(g),
		newShowCmd(g), newDiffCmd(g), newVerifyCmd(g), newCheckpointsCmd(g),
		newUndoCmd(g), newRedoCmd(g), newRestoreCmd(g), newRecoverCmd(g), newGCCmd(g), newInfoCmd(g),
		newHookCmd(g), newInitCmd(g), newAdoptCmd(g), newVersionCmd(g), newWatchCmd(g), newServeCmd(g),
	)
	if extras != nil {
		root.AddCommand(extras(g.host())...)
	} else {
		root.AddCommand(stubs(g)...)
	}
	help.Finish(root, func(err error) error { return usageError{err} })
	return root
}
