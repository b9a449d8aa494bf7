//go:build linux

package engine

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTick is USER_HZ, the unit of /proc's CPU times.
const clockTick = 10 * time.Millisecond

// cpuStat reads the machine's busy CPU time from /proc/stat.
func cpuStat() time.Duration {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0
	}
	var busy int64
	for i, v := range f[1:9] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		n, _ := strconv.ParseInt(v, 10, 64)
		busy += n
	}
	return time.Duration(busy) * clockTick
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// foreignShare is the share of the machine's CPU capacity used by other
// processes during an operation of wall time d that used own CPU itself.
func foreignShare(busy, own, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	f := float64(busy-own) / (float64(d) * float64(runtime.NumCPU()))
	return max(0, min(1, f))
}

// statusKB reads a field (VmHWM, VmRSS) of a /proc status file in KB.
func statusKB(file, field string) int64 {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, field+":") {
			if f := strings.Fields(l); len(f) >= 2 {
				n, _ := strconv.ParseInt(f[1], 10, 64)
				return n
			}
		}
	}
	return 0
}

// pidStatusKB reads a field of /proc/<pid>/status.
func pidStatusKB(pid int, field string) int64 {
	return statusKB(fmt.Sprintf("/proc/%d/status", pid), field)
}

// pidCPUTicks is the user+sys CPU time of pid in clock ticks.
func pidCPUTicks(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	_, rest, ok := strings.Cut(string(data), ") ")
	if !ok {
		return 0
	}
	f := strings.Fields(rest) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64) // field 14: utime
	s, _ := strconv.ParseInt(f[12], 10, 64) // field 15: stime
	return u + s
}

// procRun runs commands one after another as one measured operation.
type procRun struct {
	op     Op
	start  time.Time
	busy0  time.Duration
	stdout bytes.Buffer
	// wall is the sum of the commands' own wall times (measured by the
	// spawn helper, so the helper's start is not counted).
	wall    time.Duration
	floorKB int64
}

func startOp() *procRun {
	return &procRun{start: time.Now(), busy0: cpuStat()}
}

// run executes cmd under the spawn helper, adding its wall time and
// rusage to the operation.
func (p *procRun) run(cmd *exec.Cmd) error {
	var out, errb bytes.Buffer
	r, err := runMeasured(cmd, &out, &errb)
	p.op.Procs++
	p.stdout = out
	if r != nil {
		p.wall += time.Duration(r.WallNs)
		p.op.CPU += time.Duration(r.UserNs + r.SysNs)
		p.op.MaxRSSKB = max(p.op.MaxRSSKB, r.MaxRSSKB)
		p.floorKB = max(p.floorKB, r.FloorKB)
		if err == nil && r.Exit != 0 {
			err = fmt.Errorf("exit status %d", r.Exit)
		}
	}
	if err != nil {
		msg := strings.TrimSpace(errb.String())
		if len(msg) > 2000 {
			msg = msg[:2000] + "..."
		}
		return fmt.Errorf("%s: %v: %s", strings.Join(cmd.Args, " "), err, msg)
	}
	return nil
}

func (p *procRun) finish() Op {
	total := time.Since(p.start)
	p.op.Dur = p.wall
	if p.op.Procs == 0 || p.wall <= 0 {
		p.op.Dur = total
	}
	p.op.Foreign = foreignShare(cpuStat()-p.busy0, p.op.CPU, total)
	if p.op.Info == nil {
		p.op.Info = map[string]any{}
	}
	p.op.Info["rss_floor_kb"] = p.floorKB
	return p.op
}

// oneCommand runs cmd alone as one measured operation.
func oneCommand(cmd *exec.Cmd) (Op, *procRun, error) {
	p := startOp()
	err := p.run(cmd)
	return p.finish(), p, err
}
