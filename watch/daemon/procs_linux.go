package daemon

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// userHZ is the unit of /proc/PID/stat times (USER_HZ, 100 on every
// Linux architecture Go supports).
const userHZ = 100

// ProcsSupported: ListProcs finds daemons through /proc.
const ProcsSupported = true

// ListProcs lists the turnback processes of this user (other than this
// one) whose arguments (without argv[0]) match says are daemons.
func ListProcs(match func(args []string) bool) ([]Proc, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	boot := bootTime()
	uid, self := os.Getuid(), os.Getpid()
	names := map[string]bool{"turnback": true}
	if me, err := os.Executable(); err == nil {
		names[filepath.Base(me)] = true // a renamed build lists its own
	}
	var out []Proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		if p, ok := readProc(pid, uid, boot, names, match); ok {
			out = append(out, p)
		}
	}
	return out, nil
}

func readProc(pid, uid int, boot time.Time, names map[string]bool, match func([]string) bool) (Proc, bool) {
	dir := "/proc/" + strconv.Itoa(pid)
	p := Proc{PID: pid}
	status, err := os.ReadFile(dir + "/status")
	if err != nil || procUID(status) != uid {
		return p, false
	}
	raw, err := os.ReadFile(dir + "/cmdline")
	if err != nil || len(raw) == 0 {
		return p, false
	}
	argv := strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
	exe, _ := os.Readlink(dir + "/exe")
	exe = strings.TrimSuffix(exe, " (deleted)")
	if !names[filepath.Base(exe)] && !names[filepath.Base(argv[0])] {
		return p, false
	}
	p.Args = argv[1:]
	if !match(p.Args) {
		return p, false
	}
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return p, false
	}
	state, ticks, ok := ParseProcStat(stat)
	if !ok || state == 'Z' || state == 'X' {
		return p, false
	}
	p.Ticks = ticks
	p.Since = boot.Add(time.Duration(ticks) * time.Second / userHZ)
	p.RSSBytes = procRSS(status)
	p.Cwd, _ = os.Readlink(dir + "/cwd")
	p.Env = map[string]string{}
	if env, err := os.ReadFile(dir + "/environ"); err == nil {
		for _, kv := range strings.Split(string(env), "\x00") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				p.Env[k] = v
			}
		}
	}
	// The store is where its database's MANIFEST is open: right also
	// for a store moved since, and telling when it was removed.
	fds, _ := os.ReadDir(dir + "/fd")
	for _, fd := range fds {
		l, err := os.Readlink(dir + "/fd/" + fd.Name())
		if err != nil {
			continue
		}
		gone := strings.HasSuffix(l, " (deleted)")
		l = strings.TrimSuffix(l, " (deleted)")
		if filepath.Base(l) == "MANIFEST" && filepath.Base(filepath.Dir(l)) == "db" {
			p.Store, p.StoreGone = filepath.Dir(filepath.Dir(l)), gone
			break
		}
	}
	return p, true
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

func procUID(status []byte) int {
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "Uid:"); ok {
			if f := strings.Fields(v); len(f) > 0 {
				n, err := strconv.Atoi(f[0])
				if err == nil {
					return n
				}
			}
		}
	}
	return -1
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

// bootTime is when the clock of /proc/PID/stat start times began:
// now less /proc/uptime (btime of /proc/stat is whole seconds, and
// drifts from the wall clock in a VM).
func bootTime() time.Time {
	now := time.Now()
	data, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return time.Time{}
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return time.Time{}
	}
	up, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return time.Time{}
	}
	return now.Add(-time.Duration(up * float64(time.Second)))
}
