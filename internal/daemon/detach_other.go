//go:build !unix

package daemon

import "syscall"

// detachAttr: nothing to set outside unix.
func detachAttr() *syscall.SysProcAttr { return nil }
