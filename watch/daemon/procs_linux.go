package daemon

import (
	"bytes"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// ProcsSupported: a process's identity (its start time) and memory
// are known (/proc).
const ProcsSupported = true

// SelfTicks is this process's start time in clock ticks since boot: with
// its pid, its identity (see Note).
func SelfTicks() uint64 {
	stat, _ := os.ReadFile("/proc/self/stat")
	_, ticks, _ := ParseProcStat(stat)
	return ticks
}

// ProcRSS is the resident memory of pid (0 when not known).
func ProcRSS(pid int) int64 {
	status, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	return procRSS(status)
}

// ProcAlive reports whether pid runs and is still the process that
// started at ticks (not a later one given the same pid; 0: any).
func ProcAlive(pid int, ticks uint64) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	state, t, ok := ParseProcStat(stat)
	return ok && state != 'Z' && state != 'X' && (ticks == 0 || t == ticks)
}

// SignalProc sends sig to pid if it is still the process started at
// ticks, and SIGCONT after it (a stopped process acts on it then).
func SignalProc(pid int, ticks uint64, sig syscall.Signal) error {
	if !ProcAlive(pid, ticks) {
		return nil
	}
	if err := syscall.Kill(pid, sig); err != nil {
		return err
	}
	_ = syscall.Kill(pid, syscall.SIGCONT)
	return nil
}

// ParseProcStat returns the state and start time of /proc/PID/stat.
func ParseProcStat(stat []byte) (byte, uint64, bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return 0, 0, false
	}
	ticks, err := strconv.ParseUint(f[19], 10, 64) // field 22, starttime
	return f[0][0], ticks, err == nil
}

// SelfRSS is this process's resident memory.
func SelfRSS() int64 {
	status, _ := os.ReadFile("/proc/self/status")
	return procRSS(status)
}

func procRSS(status []byte) int64 {
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) == 2 && f[1] == "kB" {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n << 10
			}
		}
	}
	return 0
}

// PeerStopped reports whether the process listening at the other end of
// conn, a unix socket connection, is stopped (SIGSTOP, a terminal's
// Ctrl-Z) or traced: its kernel queues a connection, but it answers
// nothing until it runs again.
func PeerStopped(conn net.Conn) bool {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return false
	}
	var cred *unix.Ucred
	if err := raw.Control(func(fd uintptr) {
		cred, err = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil || cred == nil || cred.Pid <= 0 {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(int(cred.Pid)) + "/stat")
	if err != nil {
		return false
	}
	state, _, ok := ParseProcStat(stat)
	return ok && (state == 'T' || state == 't')
}

// ProcStopped reports whether pid, started at ticks, is stopped
// (SIGSTOP, a terminal's Ctrl-Z) or traced.
func ProcStopped(pid int, ticks uint64) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	state, t, ok := ParseProcStat(stat)
	return ok && (state == 'T' || state == 't') && (ticks == 0 || t == ticks)
}
