// Command turnback-full is turnback with every command, those whose
// libraries are large included: the S3 remote, the MCP server and the
// terminal UI. turnback hands those commands to it, and its watch
// daemons run it (see internal/fullbin).
package main

import (
	"os"

	"github.com/turnback/turnback/cmd/turnback/cli"
	"github.com/turnback/turnback/cmd/turnback/full"
	"github.com/turnback/turnback/internal/fullbin"
)

func main() {
	fullbin.Self = true
	os.Exit(cli.Main(full.Commands))
}
