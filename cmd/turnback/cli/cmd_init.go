package cli

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/turnback/turnback/cmd/turnback/agent"
)

func newInitCmd(g *globals) *cobra.Command {
	chosen := map[*agent.Agent]*bool{}
	var o agent.InitOptions
	var mcp bool
	cmd := &cobra.Command{
		Use:   "init --" + strings.Join(agent.Names(), " | --") + " [--global] [--remove] [--mcp]",
		Short: "Add turnback's hooks to an agent's settings (or take them out)",
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := agent.Chosen(chosen)
			if err != nil {
				return usageError{err}
			}
			o.Dir, o.Getenv = g.dir, g.getenv
			if o.Dir == "" && !o.Global {
				wd, err := g.getwd()
				if err != nil {
					return err
				}
				o.Dir = wd
			}
			r, err := a.InitWithMCP(o, mcp)
			if err != nil {
				return err
			}
			r.Print(g.stdout, g.json)
			return nil
		},
	}
	for _, a := range agent.All() {
		chosen[a] = cmd.Flags().Bool(a.Name, false, a.Title+" ("+a.Settings+")")
	}
	cmd.Flags().BoolVar(&o.Global, "global", false, "the user-level settings instead of the folder's")
	cmd.Flags().BoolVar(&o.Remove, "remove", false, "take turnback's hooks out, leaving the rest as it was")
	cmd.Flags().BoolVar(&mcp, "mcp", false, "also register turnback's MCP server (turnback mcp) where the agent takes MCP servers from (--remove takes it out in any case)")
	return cmd
}
