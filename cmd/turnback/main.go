// Command turnback gives per-turn undo and redo of every file change in
// a folder. It hands the remote, mcp and ui commands to turnback-full,
// installed beside it (see internal/fullbin).
package main

import (
	"os"

	"github.com/turnback/turnback/cmd/turnback/cli"
)

func main() { os.Exit(cli.Main(nil)) }
