//go:build !linux

package daemon

import (
	"net"
	"os"
	"syscall"
)

// ProcsSupported: without /proc, a process's identity (its start time)
// and memory are not known.
const ProcsSupported = false

// PeerStopped: not known without /proc.
func PeerStopped(net.Conn) bool { return false }

// ProcStopped: not known without /proc.
func ProcStopped(int, uint64) bool { return false }

// SelfTicks: not known without /proc.
func SelfTicks() uint64 { return 0 }

// ProcRSS: not known without /proc.
func ProcRSS(int) int64 { return 0 }

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
