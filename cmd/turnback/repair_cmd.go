package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

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
		return err
	}
	if g.json {
		doc := map[string]any{"repaired": res.Store != nil, "store": res.Store, "verify": res.Verify}
		if err != nil {
			return codedError{code: exitError, err: repairFailure{doc: doc, err: err}}
		}
		termout.WriteJSON(g.stdout, doc)
		return nil
	}
	termout.Repaired(g.stdout, res.Store)
	v := res.Verify
	for _, p := range v.Problems {
		fmt.Fprintf(g.stderr, "turnback: snapshot %s: %s: %s\n", p.Snapshot[:12], p.Path, p.Err)
	}
	if err != nil {
		return codedError{code: exitError, err: verifyFailure{res: v, err: err}}
	}
	fmt.Fprintf(g.stdout, "ok: %d snapshots, %d trees, %d file contents verified\n", v.Snapshots, v.Trees, v.Contents)
	return nil
}

// repairFailure carries the --json document of a repair whose verify
// found damage.
type repairFailure struct {
	doc map[string]any
	err error
}

func (f repairFailure) Error() string           { return f.err.Error() }
func (f repairFailure) jsonDoc() map[string]any { return f.doc }
