//go:build !linux

package main

import (
	"os"
	"syscall"
	"time"
)

// watchProc: see daemon_procs_linux.go. Without /proc, watch --list
// finds only the daemons that answer on a socket of the per-user
// directory or of a store under the default location.
type watchProc struct {
	pid      int
	args     []string
	cwd      string
	env      map[string]string
	store    string
	gone     bool
	since    time.Time
	ticks    uint64
	rssBytes int64
}

const procsSupported = false

func scanWatchProcs() ([]watchProc, error) { return nil, nil }

// procAlive reports whether pid runs.
func procAlive(pid int, _ uint64) bool {
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}

// signalProc sends sig to pid.
func signalProc(pid int, _ uint64, sig syscall.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Signal(sig)
}

func procRSS([]byte) int64 { return 0 }

// selfRSS: not known without /proc.
func selfRSS() int64 { return 0 }
