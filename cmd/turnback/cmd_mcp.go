package main

import (
	"github.com/spf13/cobra"

	"github.com/turnback/turnback/cmd/turnback/diag"
	"github.com/turnback/turnback/cmd/turnback/mcp"
)

func newMCPCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve turnback's tools to an agent over MCP (stdio)",
		RunE: func(cmd *cobra.Command, args []string) error {
			c := mcp.Config{Cwd: g.cwd, Dir: g.dir, Store: g.store, Session: g.session, Getenv: g.getenv, Version: diag.Version(version)}
			return mcp.ServeStdio(cmd.Context(), c)
		},
	}
}
