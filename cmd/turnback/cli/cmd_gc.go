package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/envopt"
	"github.com/turnback/turnback/cmd/turnback/termout"
	daemons "github.com/turnback/turnback/internal/daemon"
)

func newGCCmd(g *globals) *cobra.Command {
	var keep int
	var olderThan string
	var dryRun, stores, yes bool
	cmd := &cobra.Command{
		Use:   "gc [--keep N] [--older-than DUR] [--dry-run] | gc --stores [--yes]",
		Short: "Forget old turns and give the disk space back",
		RunE: func(cmd *cobra.Command, args []string) error {
			if stores {
				return g.gcStores(cmd, yes)
			}
			o := turnback.GCOptions{Keep: keep, DryRun: dryRun}
			if cmd.Flags().Changed("keep") && keep == 0 {
				return usageError{fmt.Errorf("--keep must be at least 1 (the newest turn is always kept)")}
			}
			if olderThan != "" {
				d, err := envopt.ParseDuration(olderThan)
				if err != nil {
					return usageError{err}
				}
				o.OlderThan = d
			}
			return g.withRepo(cmd, turnback.AccessWrite, func(repo *turnback.Repo) error {
				res, err := repo.GC(cmd.Context(), o)
				if err != nil {
					return err
				}
				return g.print(res, func() { termout.GC(g.stdout, res, g.location()) })
			})
		},
	}
	f := cmd.Flags()
	f.IntVar(&keep, "keep", 0, "turns to keep per session (default 100)")
	f.StringVar(&olderThan, "older-than", "", "forget turns older than this (e.g. 72h, 30d; default 30d)")
	f.BoolVar(&dryRun, "dry-run", false, "count what would be removed, remove nothing")
	f.BoolVar(&stores, "stores", false, "list stores whose folder no longer exists")
	f.BoolVar(&yes, "yes", false, "with --stores: delete them")
	return cmd
}

func (g *globals) gcStores(cmd *cobra.Command, yes bool) error {
	pids := daemons.OfOrphans(cmd.Context(), g.stderr, yes)
	list, err := turnback.OrphanStores(cmd.Context(), yes)
	if err != nil {
		return err
	}
	daemons.PrintOrphans(g.stdout, list, pids, yes, g.json)
	return nil
}
