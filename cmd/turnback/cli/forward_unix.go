//go:build !windows

package cli

import (
	"os"
	"syscall"
)

// execFull replaces this process with turnback-full run on args: same
// process, streams and signals, which an MCP server or the UI needs.
func execFull(full string, args []string) (int, error) {
	return 0, syscall.Exec(full, append([]string{full}, args...), os.Environ())
}
