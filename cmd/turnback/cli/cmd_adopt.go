package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

func newAdoptCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "adopt OLD-PATH",
		Short: "Take over the history of this folder from before it was moved or renamed",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if g.store != "" {
				return usageError{errors.New("turnback: adopt moves default stores: --store is not taken")}
			}
			wd, err := g.getwd()
			if err != nil {
				return err
			}
			dir, from := g.dir, args[0]
			if dir == "" {
				dir = wd
			} else if !filepath.IsAbs(dir) {
				dir = filepath.Join(wd, dir)
			}
			if !filepath.IsAbs(from) {
				from = filepath.Join(wd, from)
			}
			res, err := turnback.Adopt(cmd.Context(), dir, from, turnback.Options{Holder: "turnback adopt in " + dir})
			if err != nil {
				return err
			}
			return g.print(res, func() {
				fmt.Fprintf(g.stdout, "adopted the history of %s: %d turn%s in %d session%s\n",
					termout.QuotePath(res.From), res.Turns, termout.Plural(res.Turns), res.Sessions, termout.Plural(res.Sessions))
				fmt.Fprintf(g.stdout, "store: %s (was %s)\n", termout.QuotePath(res.Store), termout.QuotePath(res.Was))
				if res.Replaced {
					fmt.Fprintln(g.stdout, "the store this folder had, without history, was removed")
				}
			})
		},
	}
}
