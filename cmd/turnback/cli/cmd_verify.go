package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

func newVerifyCmd(g *globals) *cobra.Command {
	var repair bool
	c := &cobra.Command{
		Use:   "verify [--repair]",
		Short: "Re-read and re-hash everything the store holds",
		RunE: func(cmd *cobra.Command, args []string) error {
			if repair {
				return g.runRepair(cmd)
			}
			return g.withRepo(cmd, turnback.AccessRead, func(repo *turnback.Repo) error {
				res, err := repo.Verify(cmd.Context())
				if err != nil && !errors.Is(err, turnback.ErrVerify) {
					return err
				}
				if d := repo.LogDamage(); d != nil {
					// What checks out was verified; the damage is the outcome.
					termout.VerifyProblems(g.stderr, res)
					return d
				}
				if g.json && err == nil {
					termout.WriteJSON(g.stdout, termout.VerifyDoc(res))
					return nil
				}
				termout.VerifyProblems(g.stderr, res)
				if err != nil {
					return codedError{exitError, docError{err, termout.VerifyFailureDoc(res)}}
				}
				termout.Verified(g.stdout, res)
				return nil
			})
		},
	}
	c.Flags().BoolVar(&repair, "repair", false, "rebuild a store whose database metadata is missing or damaged (nothing is deleted), mend damaged record keys, verify, and store again damaged content the folder still holds")
	return c
}

// runRepair is "turnback verify --repair": it runs in this process (a
// damaged store has no daemon serving it).
func (g *globals) runRepair(cmd *cobra.Command) error {
	workTree, storeDir, session, err := g.locate()
	if err != nil {
		return err
	}
	res, err := turnback.Repair(cmd.Context(), workTree, turnback.Options{Store: storeDir, Session: session, Force: g.force,
		Holder: "turnback verify --repair in " + workTree})
	if err != nil && !errors.Is(err, turnback.ErrVerify) {
		if res != nil && !g.json {
			// What was stored again before the failure stays stored.
			for _, h := range res.Healed {
				termout.Healed(g.stdout, h)
			}
		}
		return err
	}
	if g.json {
		doc := map[string]any{"repaired": res.Store != nil || res.Log != nil || len(res.Keys) > 0 || len(res.Healed) > 0,
			"store": res.Store, "log": res.Log, "keys": res.Keys, "healed": res.Healed, "served": res.Served, "verify": res.Verify}
		if err != nil {
			return codedError{exitError, docError{err, doc}}
		}
		termout.WriteJSON(g.stdout, doc)
		return nil
	}
	termout.Repaired(g.stdout, g.stderr, res)
	if err != nil {
		return codedError{exitError, docError{err, termout.VerifyFailureDoc(res.Verify)}}
	}
	termout.RepairVerified(g.stdout, res.Verify)
	return nil
}
