//go:build !unix

package autowatch

import "syscall"

// detachAttr: nothing to set outside unix.
func detachAttr() *syscall.SysProcAttr { return nil }
