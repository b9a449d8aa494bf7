//go:build !linux

package restore

import "os"

// exchange is not available here: callers move the live entry aside
// first, then rename the new one in (see swapIn).
func exchange(*os.Root, string, *os.Root, string) error { return errNoExchange }

func renameNoReplace(*os.Root, string, *os.Root, string) error { return errNoExchange }
