//go:build !unix

package daemons

import "syscall"

// detachAttr: nothing to set outside unix.
func detachAttr() *syscall.SysProcAttr { return nil }
