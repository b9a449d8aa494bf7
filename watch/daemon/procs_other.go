//go:build !linux

package daemon

import (
	"os"
	"syscall"
)

// ProcsSupported: without /proc, ListProcs finds nothing; the daemons
// that answer on a socket are all a listing can find.
const ProcsSupported = false

// ListProcs finds nothing without /proc.
func ListProcs(func(args []string) bool) ([]Proc, error) { return nil, nil }

// ProcAlive reports whether pid runs.
func ProcAlive(pid int, _ uint64) bool {
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}

// SignalProc sends sig to pid.
func SignalProc(pid int, _ uint64, sig syscall.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Signal(sig)
}

// SelfRSS: not known without /proc.
func SelfRSS() int64 { return 0 }
