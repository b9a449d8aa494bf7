package main

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/turnback/turnback/cmd/turnback/diag"
	tbmcp "github.com/turnback/turnback/cmd/turnback/mcp"
)

func newMCPCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve turnback's tools to an agent over MCP (stdio)",
		RunE: func(cmd *cobra.Command, args []string) error {
			wd, err := g.getwd()
			if err != nil {
				return err
			}
			session := g.session
			if session == "" {
				session = g.getenv("TURNBACK_SESSION")
			}
			c := tbmcp.Config{Cwd: wd, Dir: g.dir, Store: g.store, Session: session, Getenv: g.getenv, Version: diag.Version(version)}
			return tbmcp.Serve(cmd.Context(), &mcp.StdioTransport{}, c)
		},
	}
}
