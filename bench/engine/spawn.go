//go:build linux

package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Go starts children with clone(CLONE_VM|CLONE_VFORK), and Linux records
// the high-water RSS of the memory the child shared with its parent when
// the child calls exec: a child of a large parent reports the parent's
// peak as its own ru_maxrss (a child /bin/true of a 300 MB process says
// 300 MB). So every measured command runs under a small helper: this
// binary re-executed with SpawnEnv set, which starts the command, waits
// for it with wait4 and reports its own wall time and rusage. The helper
// is a fresh process of a few MB, so the command's ru_maxrss is exact
// whenever it exceeds the helper's (reported as floor_kb).
const SpawnEnv = "TURNBACK_BENCH_SPAWN_HELPER"

// spawnReport is what the helper writes on fd 3.
type spawnReport struct {
	WallNs   int64  `json:"wall_ns"`
	MaxRSSKB int64  `json:"maxrss_kb"`
	UserNs   int64  `json:"user_ns"`
	SysNs    int64  `json:"sys_ns"`
	Exit     int    `json:"exit"`
	FloorKB  int64  `json:"floor_kb"`
	Err      string `json:"err,omitempty"`
}

// SpawnHelper is the helper's main (the bench binary calls it when
// SpawnEnv is set): argv[1:] is the command; it returns the exit code.
func SpawnHelper() int {
	rep := os.NewFile(3, "report")
	// The command must not inherit the report pipe: a process it leaves
	// running (turnback watch --detach starts a daemon) would hold the
	// pipe open, and the harness would wait for that process to end.
	syscall.CloseOnExec(3)
	var r spawnReport
	defer func() {
		json.NewEncoder(rep).Encode(&r)
		rep.Close()
	}()
	if len(os.Args) < 2 {
		r.Err, r.Exit = "no command", -1
		return 0
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, SpawnEnv+"=") {
			env = append(env, kv)
		}
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Env = os.Stdin, os.Stdout, os.Stderr, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	r.FloorKB = statusKB("/proc/self/status", "VmHWM")
	start := time.Now()
	err := cmd.Run()
	r.WallNs = int64(time.Since(start))
	if cmd.ProcessState == nil {
		r.Err, r.Exit = err.Error(), -1
		return 0
	}
	r.Exit = cmd.ProcessState.ExitCode()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.MaxRSSKB = ru.Maxrss
		r.UserNs, r.SysNs = ru.Utime.Nano(), ru.Stime.Nano()
	}
	return 0
}

// runMeasured runs cmd (built with exec.Command, not yet started) under
// the helper and returns its own wall time and rusage.
func runMeasured(cmd *exec.Cmd, stdout, stderr *bytes.Buffer) (*spawnReport, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer pr.Close()
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	h := exec.Command(self, append([]string{cmd.Path}, cmd.Args[1:]...)...)
	h.Env = append(append([]string(nil), env...), SpawnEnv+"=1")
	h.Dir = cmd.Dir
	h.Stdout, h.Stderr = stdout, stderr
	h.ExtraFiles = []*os.File{pw}
	if err := h.Start(); err != nil {
		pw.Close()
		return nil, err
	}
	pw.Close()
	var buf bytes.Buffer
	buf.ReadFrom(pr)
	if err := h.Wait(); err != nil {
		return nil, fmt.Errorf("engine: spawn helper: %v", err)
	}
	var r spawnReport
	if err := json.Unmarshal(buf.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("engine: spawn helper report %q: %v", buf.String(), err)
	}
	if r.Err != "" {
		return &r, fmt.Errorf("engine: spawn helper: %s", r.Err)
	}
	return &r, nil
}
