package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

type conflictFailure struct {
	res *turnback.RestoreResult
	err error
}

func (c conflictFailure) Error() string           { return c.err.Error() }
func (c conflictFailure) Unwrap() error           { return c.err }
func (c conflictFailure) jsonDoc() map[string]any { return termout.RestoreDoc(c.res) }

// countArg parses the optional N of undo and redo.
func countArg(args []string) (int, error) {
	if len(args) == 0 {
		return 1, nil
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 {
		return 0, usageError{fmt.Errorf("count must be a positive number, got %q", args[0])}
	}
	return n, nil
}

// handleRestore prints a restoring command's outcome and maps conflicts
// to exit code 3.
func (g *globals) handleRestore(verb, nothing string, res *turnback.RestoreResult, err error) error {
	var ce *turnback.ConflictError
	if errors.As(err, &ce) {
		r := ce.Result
		if !g.json {
			if r.Turns > 0 {
				termout.Restore(g.stdout, verb, r)
			}
			termout.Conflicts(g.stderr, r)
		}
		return codedError{code: exitConflict, err: conflictFailure{res: r, err: err}}
	}
	if err != nil {
		return err
	}
	if g.json {
		if err := incomplete(res); err != nil {
			return err // main writes the document, with exit_code 5
		}
		termout.WriteJSON(g.stdout, termout.RestoreDoc(res))
		return nil
	}
	if res.Nothing {
		fmt.Fprintln(g.stdout, nothing)
		return nil
	}
	termout.Restore(g.stdout, verb, res)
	return incomplete(res)
}

func newUndoCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "undo [N] [--force]",
		Short: "Revert the last N turns of the session (default 1)",
		Long:  help("undo"),
		Example: `  turnback undo            # revert the last turn
  turnback undo 3          # revert the last three turns
  turnback undo --force    # even over edits made since (they stay recoverable)
  turnback --json undo`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := countArg(args)
			if err != nil {
				return err
			}
			return g.withRepo(cmd, turnback.AccessWrite, func(repo *turnback.Repo) error {
				g.installHook(repo)
				res, err := repo.Undo(cmd.Context(), n, g.force)
				g.endProgress()
				return g.handleRestore("undid", "nothing to undo", res, err)
			})
		},
	}
	return cmd
}

func newRedoCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "redo [N] [--force]",
		Short: "Re-apply undone turns, oldest first (default 1)",
		Long:  help("redo"),
		Example: `  turnback redo
  turnback redo 2
  turnback --json redo`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := countArg(args)
			if err != nil {
				return err
			}
			return g.withRepo(cmd, turnback.AccessWrite, func(repo *turnback.Repo) error {
				g.installHook(repo)
				res, err := repo.Redo(cmd.Context(), n, g.force)
				g.endProgress()
				return g.handleRestore("redid", "nothing to redo", res, err)
			})
		},
	}
}

func newRestoreCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "restore ID",
		Short: "Make the folder exactly snapshot ID",
		Long:  help("restore"),
		Example: `  turnback log              # find the id
  turnback restore 3f2a9c
  turnback restore <checkpoint printed above>   # go back`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withRepo(cmd, turnback.AccessWrite, func(repo *turnback.Repo) error {
				g.installHook(repo)
				res, err := repo.Restore(cmd.Context(), args[0])
				g.endProgress()
				return g.handleRestore("restored", "", res, err)
			})
		},
	}
}

// installHook arms the crash-injection hook used by the tests:
// TURNBACK_TEST_CRASH_AT=N kills the process at the N-th restore step;
// TURNBACK_TEST_FAIL_AT=N makes the N-th step fail with "no space left
// on device" (as a full disk would while staging).
func (g *globals) installHook(repo *turnback.Repo) {
	crash, _ := strconv.Atoi(g.getenv("TURNBACK_TEST_CRASH_AT"))
	fail, _ := strconv.Atoi(g.getenv("TURNBACK_TEST_FAIL_AT"))
	trace := g.getenv("TURNBACK_TEST_TRACE") != ""
	if crash <= 0 && fail <= 0 && !trace {
		return
	}
	step := 0
	repo.SetRestoreHook(func(name string) error {
		step++
		if trace {
			fmt.Fprintf(g.stderr, "step %d: %s\n", step, name)
		}
		if step == crash {
			p, _ := os.FindProcess(os.Getpid())
			_ = p.Kill()
			select {}
		}
		if step == fail {
			return errNoSpace
		}
		return nil
	})
}
