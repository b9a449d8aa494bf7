//go:build unix

package daemon

import "syscall"

// detachAttr puts the daemon in a session of its own, so that the
// terminal's hangup and job-control signals do not reach it.
func detachAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
