package main

import (
	"github.com/spf13/cobra"

	"github.com/turnback/turnback/cmd/turnback/diag"
	"github.com/turnback/turnback/cmd/turnback/mcp"
)

func newMCPCmd(g *globals) *cobra.Command {
	return mcp.Command(func() mcp.Config {
		return mcp.Config{Cwd: g.cwd, Dir: g.dir, Store: g.store, Session: g.session, Getenv: g.getenv, Version: diag.Version(version)}
	})
}
