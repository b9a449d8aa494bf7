package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/turnback/turnback/cmd/turnback/agent"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

func newInitCmd(g *globals) *cobra.Command {
	chosen := map[*agent.Agent]*bool{}
	cmd := &cobra.Command{
		Use:   "init --" + strings.Join(agent.Names(), " | --"),
		Short: "Add turnback's hooks to an agent's project settings",
		RunE: func(cmd *cobra.Command, args []string) error {
			var a *agent.Agent
			var flags []string
			n := 0
			for _, x := range agent.All() {
				flags = append(flags, "--"+x.Name)
				if *chosen[x] {
					a, n = x, n+1
				}
			}
			if n != 1 {
				return usageError{errors.New("say which agent: " + strings.Join(flags, " or "))}
			}
			dir := g.dir
			if dir == "" {
				wd, err := g.getwd()
				if err != nil {
					return err
				}
				dir = wd
			}
			path, changed, err := a.Install(dir, a.Command())
			if err != nil {
				return err
			}
			cmds, err := a.InstallCommands(dir, a.Command()) // slash commands (agent/commands.go)
			if err != nil {
				return err
			}
			if g.json {
				termout.WriteJSON(g.stdout, map[string]any{"settings": path, "changed": changed, "commands": cmds})
				return nil
			}
			defer cmds.Report(g.stdout)
			if changed {
				fmt.Fprintf(g.stdout, "added turnback hooks for %s to %s\n", a.Name, termout.QuotePath(path))
			} else {
				fmt.Fprintf(g.stdout, "%s already has turnback's hooks; nothing changed\n", termout.QuotePath(path))
			}
			return nil
		},
	}
	for _, a := range agent.All() {
		chosen[a] = cmd.Flags().Bool(a.Name, false, a.Title+" ("+a.Settings+")")
	}
	return cmd
}
