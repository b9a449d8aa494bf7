//go:build !unix

package main

import "syscall"

// detachAttr: nothing to set outside unix.
func detachAttr() *syscall.SysProcAttr { return nil }

// checkSocketDir: unix sockets are used on unix only in practice; other
// systems rely on the store directory's own protection.
func checkSocketDir(dir string) error { return nil }

// privateUmask: no umask outside unix.
func privateUmask() func() { return func() {} }
