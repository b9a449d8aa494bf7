package cli

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/agent"
	"github.com/turnback/turnback/cmd/turnback/diag"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

func newUndoCmd(g *globals) *cobra.Command {
	var o turnback.UndoOptions
	cmd := &cobra.Command{
		Use:   "undo [N] [--path P]... [--merge[=markers]] [--dry-run] [--force]",
		Short: "Revert the last N turns of the session (default 1)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := countArg(args)
			if err != nil {
				return err
			}
			return g.runRestore(cmd, "undid", "nothing to undo", o.DryRun, func(repo *turnback.Repo) (*turnback.RestoreResult, error) {
				if o.Force = g.force; g.dir == "" { // --path is relative to the work tree with -C (as git -C)
					o.Dir, _ = g.getwd()
				}
				return repo.Undo(cmd.Context(), n, o)
			})
		},
	}
	cmd.Flags().StringArrayVar(&o.Paths, "path", nil, "revert only this file or directory (relative to the current directory; repeatable)")
	cmd.Flags().Var(&o.Merge, "merge", "merge the user's edits in text files (=markers: write conflict markers where they overlap)")
	cmd.Flags().Lookup("merge").NoOptDefVal = string(turnback.MergeClean)
	return dryRunFlag(cmd, &o.DryRun)
}

func newRedoCmd(g *globals) *cobra.Command {
	var o turnback.RedoOptions
	return dryRunFlag(&cobra.Command{
		Use:   "redo [N] [--dry-run] [--force]",
		Short: "Re-apply undone turns, oldest first (default 1)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := countArg(args)
			if err != nil {
				return err
			}
			return g.runRestore(cmd, "redid", "nothing to redo", o.DryRun, func(repo *turnback.Repo) (*turnback.RestoreResult, error) {
				o.Force = g.force
				return repo.Redo(cmd.Context(), n, o)
			})
		},
	}, &o.DryRun)
}

func newRestoreCmd(g *globals) *cobra.Command {
	var o turnback.RestoreOptions
	return dryRunFlag(&cobra.Command{
		Use:   "restore ID [--dry-run]",
		Short: "Make the folder exactly snapshot ID",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.runRestore(cmd, "restored", "", o.DryRun, func(repo *turnback.Repo) (*turnback.RestoreResult, error) {
				return repo.Restore(cmd.Context(), args[0], o)
			})
		},
	}, &o.DryRun)
}

func dryRunFlag(cmd *cobra.Command, v *bool) *cobra.Command {
	cmd.Flags().BoolVar(v, "dry-run", false, "print what would be done and change nothing (the store is opened read-only)")
	cmd.Flags().Bool("verbose", false, "list every path, also those below a directory deleted or brought back whole")
	return cmd
}

// runRestore is undo, redo and restore: it arms the tests' faults, runs
// op and prints its outcome (see handleRestore); a dry run read-only.
func (g *globals) runRestore(cmd *cobra.Command, verb, nothing string, dry bool, op func(*turnback.Repo) (*turnback.RestoreResult, error)) error {
	return g.withRepo(cmd, map[bool]turnback.Access{false: turnback.AccessWrite, true: turnback.AccessRead}[dry], func(repo *turnback.Repo) error {
		diag.InstallFaults(repo, g.getenv, g.stderr)
		res, err := op(repo)
		g.endProgress()
		if err == nil && res.Nothing && verb == "redid" {
			nothing = g.nothingToRedo(cmd.Context(), repo)
		}
		verbose, _ := cmd.Flags().GetBool("verbose")
		if err := g.handleRestore(verb, nothing, res, err, verbose); err != nil || !res.Nothing || verb != "undid" {
			return err
		}
		if list, err := repo.Sessions(cmd.Context()); err == nil {
			g.movedHint(repo, list)
		}
		return nil
	})
}

// handleRestore prints a restoring command's outcome (a dry run's too)
// and maps conflicts to exit code 3, a bad --path to 2.
func (g *globals) handleRestore(verb, nothing string, res *turnback.RestoreResult, err error, verbose bool) error {
	var ce *turnback.ConflictError
	if errors.As(err, &ce) {
		r := ce.Result
		if !g.json {
			if r.Turns > 0 {
				termout.RestoreListColor(g.stdout, verb, r, verbose, g.useColor())
			}
			if g.own != "" {
				g.ownAgent().Conflict(g.stdout, g.own, g.args, r)
				return codedError{exitConflict, reported{err}}
			}
			termout.ConflictsColor(g.stderr, map[string]string{"undid": "undo", "redid": "redo"}[verb], g.cliStart(), agent.MergeArg(g.args), r, g.useColorErr())
			return codedError{exitConflict, reported{err}} // said once, above
		}
		return codedError{exitConflict, docError{err, termout.RestoreDoc(r)}}
	}
	if errors.Is(err, turnback.ErrPath) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	if err := incomplete(res); err != nil && g.json {
		return err // main writes the document, with exit_code 5
	}
	if res.Nothing && !g.json {
		fmt.Fprintln(g.stdout, nothing)
		return nil
	}
	g.print(termout.RestoreDoc(res), func() { termout.RestoreListColor(g.stdout, verb, res, verbose, g.useColor()) })
	if g.own != "" && res.DryRun == nil {
		fmt.Fprintln(g.stdout, g.ownAgent().Done(g.own))
	}
	return incomplete(res)
}

// cliStart is the start of a command line that works as this one did:
// "turnback", with -C and --session when they were given.
func (g *globals) cliStart() string {
	s := "turnback"
	if g.dir != "" {
		s += " -C " + termout.ShellQuote(g.dir)
	}
	if g.session != "" {
		s += " --session " + termout.ShellQuote(g.session)
	}
	return s
}

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

// exitIncomplete: an undo, redo or restore did what it could but left
// paths not restorable (listed).
const exitIncomplete = 5

// incomplete maps a restore that left paths not restorable to exit 5,
// its document in --json.
func incomplete(res *turnback.RestoreResult) error {
	if res == nil || res.Nothing || !res.Incomplete() {
		return nil
	}
	return codedError{exitIncomplete, docError{errors.New(termout.Incomplete(res)), termout.RestoreDoc(res)}}
}
