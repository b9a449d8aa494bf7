//go:build !unix

package main

import "syscall"

// detachAttr: nothing to set outside unix.
func detachAttr() *syscall.SysProcAttr { return nil }
