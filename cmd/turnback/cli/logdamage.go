package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

// noteLogDamage says on stderr that the store's write log is damaged and
// what is shown (a reading command), or what an open that salvaged it
// did (recover). verify reports the damage as its outcome instead.
func (g *globals) noteLogDamage(cmd *cobra.Command, repo *turnback.Repo) {
	if d := repo.LogDamage(); d != nil && cmd.Name() != "verify" {
		fmt.Fprintf(g.stderr, "turnback: warning: showing what is readable: %s\n", termout.SafeText(d.Error()))
	}
	if s := repo.Salvaged(); s != nil {
		termout.LogSalvaged(g.stderr, s)
	}
}
