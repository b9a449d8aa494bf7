package daemon

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/fullbin"
	wd "github.com/turnback/turnback/watch/daemon"
)

const (
	// DefaultFiles is TURNBACK_AUTO_WATCH's default.
	DefaultFiles = 2000
	// Idle is the idle timeout of a daemon started automatically.
	Idle = 30 * time.Minute
	// Retry is how long a failed automatic start keeps the next ones
	// from trying again.
	Retry = 24 * time.Hour
	// FailedName is the file, in the store, that says why the last
	// automatic start failed.
	FailedName = "watch.failed"
	// maxWatchLog: a longer watch.log becomes watch.log.old when a daemon
	// starts.
	maxWatchLog = 1 << 20
	// watchReserve is how many inotify watches (of the user's limit) an
	// automatic daemon leaves to other programs.
	watchReserve = 16384
)

// supported: inotify watches directories only, one watch each;
// elsewhere a watcher may need a descriptor per file, so daemons start
// only when asked for.
var supported = runtime.GOOS == "linux"

// Files parses TURNBACK_AUTO_WATCH: the number of files from which a
// capture starts a daemon; 0 means never.
func Files(getenv func(string) string) (int64, error) {
	v := strings.TrimSpace(getenv("TURNBACK_AUTO_WATCH"))
	switch strings.ToLower(v) {
	case "":
		return DefaultFiles, nil
	case "off", "no", "false", "never":
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("TURNBACK_AUTO_WATCH: bad value %q: want a number of files such as 2000, or 0 for never", v)
	}
	return n, nil
}

// Local is the folder and store of a command this process ran itself
// (no daemon ran it), and what its captures found.
type Local struct {
	WorkTree, StoreDir string
	Captured           int64 // files of the largest capture, -1: none
	Dirs               int64 // directories of the largest capture
	TimedOut           bool  // a capture ran out of its time budget
	Started            bool  // Start started a daemon, or kept Early's

	// early: the daemon Early started, if any; stop and done end and
	// wait for its watch of the capture's progress.
	early      *exec.Cmd
	stop, done chan struct{}
}

// NewLocal is the Local of a command on workTree and storeDir that has
// captured nothing yet.
func NewLocal(workTree, storeDir string) *Local {
	return &Local{WorkTree: workTree, StoreDir: storeDir, Captured: -1}
}

// Note records a capture that found files files and dirs directories;
// on a nil Local (a command a daemon ran), nothing.
func (l *Local) Note(files, dirs int64) {
	if l != nil {
		l.Captured = max(l.Captured, files)
		l.Dirs = max(l.Dirs, dirs)
	}
}

// NoteTimedOut records that a capture was cut short by a time budget
// (an agent hook's): the folder counts as large. On a nil Local,
// nothing.
func (l *Local) NoteTimedOut() {
	if l != nil {
		l.TimedOut = true
	}
}

// Start starts a watch daemon for the folder l captured, if the rules
// (see doc.go) ask for one, without waiting for it. An error says the
// daemon could not be started; a daemon that starts but cannot watch
// says why in watch.log (and watch.failed). A daemon Early started
// while the command captured is kept if the rules still ask for one
// with the capture's final counts, and stopped otherwise.
func Start(l *Local, getenv func(string) string, force bool) error {
	if l == nil {
		return nil
	}
	l.stopEarly()
	want := (l.Captured >= 0 || l.TimedOut) && l.allowed(getenv, l.Captured, l.Dirs, l.TimedOut)
	if l.early != nil {
		if !want {
			// It holds nothing yet but the watches, or the store for an
			// instant: it stops as on "watch --stop".
			_ = l.early.Process.Signal(syscall.SIGTERM)
		}
		_ = l.early.Process.Release()
		l.Started = want
		return nil
	}
	if !want {
		return nil
	}
	if _, ok := wd.Ping(l.StoreDir); ok {
		return nil
	}
	c, _, _, err := StartDaemon(l.WorkTree, l.StoreDir, force, Idle, 0, "--auto")
	if err != nil {
		return err
	}
	// Not waited for: the daemon lives on in its own session.
	_ = c.Process.Release()
	l.Started = true
	return nil
}

// allowed applies the rules (see doc.go) to a folder whose capture
// found files files and dirs directories (timedOut: it ran out of its
// time budget).
func (l *Local) allowed(getenv func(string) string, files, dirs int64, timedOut bool) bool {
	if !supported {
		return false
	}
	limit, err := Files(getenv)
	if err != nil || limit == 0 || (files < limit && !timedOut) {
		return false
	}
	if turnback.CheckLocation(l.WorkTree, l.StoreDir, false) != nil {
		// "/" or the home directory (allowed with --force): watching
		// every directory there is not done unasked.
		return false
	}
	if fi, err := os.Stat(filepath.Join(l.StoreDir, FailedName)); err == nil && time.Since(fi.ModTime()) < Retry {
		return false
	}
	if ok, _ := watchableFS(l.WorkTree); !ok {
		// inotify does not see what another machine changes there: a
		// daemon would trust a watcher that misses edits.
		return false
	}
	// The daemon would otherwise take watches the user's other programs
	// (editors, bundlers) need.
	return watchHeadroom(dirs)
}

// StartDaemon starts "turnback watch" for the folder as a background
// process in a session of its own, logging to watch.log in the store.
// It returns the process, the log's path and where this start's lines
// begin in it.
func StartDaemon(workTree, storeDir string, force bool, idle time.Duration, queue int, extra ...string) (*exec.Cmd, string, int64, error) {
	return startDaemon(workTree, storeDir, force, idle, queue, nil, nil, extra...)
}

// startDaemon is StartDaemon with env added to the daemon's environment.
func startDaemon(workTree, storeDir string, force bool, idle time.Duration, queue int, env []string, files []*os.File, extra ...string) (*exec.Cmd, string, int64, error) {
	exe, err := fullbin.Daemon() // so that it can serve a push or pull
	if err != nil {
		return nil, "", 0, fmt.Errorf("turnback: watch: find the turnback executable: %w", err)
	}
	if err := os.MkdirAll(storeDir, 0o700); err != nil {
		return nil, "", 0, fmt.Errorf("turnback: watch: create store: %w", err)
	}
	logPath := filepath.Join(storeDir, "watch.log")
	if fi, err := os.Stat(logPath); err == nil && fi.Size() > maxWatchLog {
		// Daemons start by themselves now: keep one old log, not all.
		_ = os.Rename(logPath, logPath+".old")
	}
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, "", 0, fmt.Errorf("turnback: watch: %w", err)
	}
	defer logf.Close()
	start, _ := logf.Seek(0, io.SeekEnd)
	args := []string{"-C", workTree, "--store", storeDir}
	if force {
		args = append(args, "--force")
	}
	args = append(args, "watch", "--idle-timeout", idle.String())
	if queue > 0 {
		args = append(args, fmt.Sprintf("--queue-size=%d", queue))
	}
	args = append(args, extra...)
	c := exec.Command(exe, args...)
	c.Stdin, c.Stdout, c.Stderr = nil, logf, logf
	c.ExtraFiles = files
	c.Env = append(daemonEnv(os.Environ()), env...)
	c.Dir = "/"
	c.SysProcAttr = detachAttr()
	if err := c.Start(); err != nil {
		return nil, "", 0, fmt.Errorf("turnback: watch: start the daemon: %w", err)
	}
	return c, logPath, start, nil
}

// NoteFailure, in a daemon started automatically that cannot watch,
// keeps commands from starting another for a while (Retry).
func NoteFailure(storeDir string, why error) {
	msg := fmt.Sprintf("%s automatic watch daemon failed: %v\n", time.Now().UTC().Format(time.RFC3339), why)
	_ = os.WriteFile(filepath.Join(storeDir, FailedName), []byte(msg), 0o600)
}

// autoFailure returns why the last automatic start failed, if it keeps
// commands from starting a daemon now.
func autoFailure(storeDir string) (string, bool) {
	p := filepath.Join(storeDir, FailedName)
	fi, err := os.Stat(p)
	if err != nil || time.Since(fi.ModTime()) >= Retry {
		return "", false
	}
	data, _ := os.ReadFile(p)
	return strings.TrimSpace(string(data)), true
}

// Note says, for info, how a daemon would start for the folder whose
// store is storeDir.
func Note(getenv func(string) string, storeDir string) string {
	const byHand = "turnback watch --detach starts a daemon"
	limit, err := Files(getenv)
	switch {
	case !supported || err != nil:
		return byHand
	case limit == 0:
		return byHand + "; TURNBACK_AUTO_WATCH=0: none starts by itself"
	}
	if why, ok := autoFailure(storeDir); ok {
		return fmt.Sprintf("%s; none starts by itself for a day after: %s (see watch.log)", byHand, why)
	}
	return fmt.Sprintf("%s; a snap, end or status of %d+ files starts one by itself", byHand, limit)
}

// daemonEnv is the environment of a daemon started from this one: the
// same, less what belongs to this process alone (its CPU profile, which
// the daemon would overwrite, and the pid and the pipe an early daemon
// was given).
func daemonEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if strings.HasPrefix(kv, "TURNBACK_CPUPROFILE=") || strings.HasPrefix(kv, EarlyEnv+"=") || strings.HasPrefix(kv, BuiltEnv+"=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// ClearFailure forgets a failed automatic start: a daemon watches now.
func ClearFailure(storeDir string) {
	_ = os.Remove(filepath.Join(storeDir, FailedName))
}
