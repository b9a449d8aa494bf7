package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/watch/daemon"
)

// Starting a watch daemon automatically.
//
// A command that captured the folder without a daemon (snap, end, status
// and the agent hooks) walked the whole tree: the next one will again.
// When the folder holds at least TURNBACK_AUTO_WATCH files (default
// defaultAutoWatchFiles), or an agent hook's capture ran out of its time
// budget (the folder is large), the command ends by starting a watch daemon in
// the background (as "turnback watch --detach --idle-timeout 30m" would,
// without waiting for it), so the following commands are forwarded to it
// and cost only what changed. The command's own output and exit code are
// unchanged and it does not wait: the daemon's first capture (cheap, the
// stat cache is warm) runs while the agent works. A daemon that cannot
// watch leaves watch.failed in the store, and no command starts one again
// for a day (or until "turnback watch" runs). Never for "/" or the home
// directory (folders turnback captures only with --force), on network or
// FUSE filesystems (inotify does not report changes made from elsewhere:
// a daemon would trust a watcher that misses edits), or when the
// folder's directories would leave other programs fewer than
// watchReserve of the user's inotify watches. watch.log is rotated
// (watch.log.old) past maxWatchLog.

const (
	defaultAutoWatchFiles = 2000
	autoWatchIdle         = 30 * time.Minute
	// autoWatchRetry is how long a failed automatic start keeps the
	// next ones from trying again.
	autoWatchRetry = 24 * time.Hour
	autoFailedName = "watch.failed"
	// maxWatchLog: a longer watch.log becomes watch.log.old when a daemon
	// starts.
	maxWatchLog = 1 << 20
	// watchReserve is how many inotify watches (of the user's limit) an
	// automatic daemon leaves to other programs.
	watchReserve = 16384
)

// autoWatchSupported: inotify watches directories only, one watch each;
// elsewhere a watcher may need a descriptor per file, so daemons start
// only when asked for.
var autoWatchSupported = runtime.GOOS == "linux"

// autoWatchFiles parses TURNBACK_AUTO_WATCH: the number of files from
// which a capture starts a daemon; 0 means never.
func autoWatchFiles(getenv func(string) string) (int64, error) {
	v := strings.TrimSpace(getenv("TURNBACK_AUTO_WATCH"))
	switch strings.ToLower(v) {
	case "":
		return defaultAutoWatchFiles, nil
	case "off", "no", "false", "never":
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("TURNBACK_AUTO_WATCH: bad value %q: want a number of files such as 2000, or 0 for never", v)
	}
	return n, nil
}

// noteCapture records that this process captured the folder itself (no
// daemon ran the command) and found files files.
func (g *globals) noteCapture(files, dirs int64) {
	if g.served == nil && g.local != nil {
		g.local.captured = max(g.local.captured, files)
		g.local.dirs = max(g.local.dirs, dirs)
	}
}

// noteCaptureTimedOut records that a capture this process ran was cut
// short by a time budget (an agent hook's): the folder counts as large.
func (g *globals) noteCaptureTimedOut() {
	if g.served == nil && g.local != nil {
		g.local.timedOut = true
	}
}

// localRun is the folder and store of a command this process ran itself.
type localRun struct {
	workTree, storeDir string
	captured           int64 // files of the largest capture, -1: none
	dirs               int64 // directories of the largest capture
	timedOut           bool  // a capture ran out of its time budget
}

// autoWatch starts a watch daemon for the folder the command captured,
// if the rules above ask for one. It never fails the command: a daemon
// that cannot start says why in watch.log (and watch.failed).
func (g *globals) autoWatch() {
	l := g.local
	if !autoWatchSupported || l == nil || g.served != nil || (l.captured < 0 && !l.timedOut) {
		return
	}
	limit, err := autoWatchFiles(g.getenv)
	if err != nil || limit == 0 || (l.captured < limit && !l.timedOut) {
		return
	}
	if turnback.CheckLocation(l.workTree, l.storeDir, false) != nil {
		// "/" or the home directory (allowed with --force): watching
		// every directory there is not done unasked.
		return
	}
	if fi, err := os.Stat(filepath.Join(l.storeDir, autoFailedName)); err == nil && time.Since(fi.ModTime()) < autoWatchRetry {
		return
	}
	if ok, _ := watchableFS(l.workTree); !ok {
		// inotify does not see what another machine changes there: a
		// daemon would trust a watcher that misses edits.
		return
	}
	if !watchHeadroom(l.dirs) {
		// The daemon would take watches the user's other programs
		// (editors, bundlers) need.
		return
	}
	if _, ok := daemon.Ping(l.storeDir); ok {
		return
	}
	c, _, _, err := startDaemon(l.workTree, l.storeDir, g.force, autoWatchIdle, 0, "--auto")
	if err != nil {
		fmt.Fprintf(g.stderr, "turnback: warning: could not start a watch daemon (TURNBACK_AUTO_WATCH=0 stops trying): %v\n", err)
		return
	}
	// Not waited for: the daemon lives on in its own session.
	_ = c.Process.Release()
}

// startDaemon starts "turnback watch" for the folder as a background
// process in a session of its own, logging to watch.log in the store.
// It returns the process, the log's path and where this start's lines
// begin in it.
func startDaemon(workTree, storeDir string, force bool, idle time.Duration, queue int, extra ...string) (*exec.Cmd, string, int64, error) {
	exe, err := os.Executable()
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
	c.Env = daemonEnv(os.Environ())
	c.Dir = "/"
	c.SysProcAttr = detachAttr()
	if err := c.Start(); err != nil {
		return nil, "", 0, fmt.Errorf("turnback: watch: start the daemon: %w", err)
	}
	return c, logPath, start, nil
}

// noteAutoFailure, in a daemon started automatically that cannot watch,
// keeps commands from starting another for a while.
func noteAutoFailure(storeDir string, why error) {
	msg := fmt.Sprintf("%s automatic watch daemon failed: %v\n", time.Now().UTC().Format(time.RFC3339), why)
	_ = os.WriteFile(filepath.Join(storeDir, autoFailedName), []byte(msg), 0o600)
}

// autoFailure returns why the last automatic start failed, if it keeps
// commands from starting a daemon now.
func autoFailure(storeDir string) (string, bool) {
	p := filepath.Join(storeDir, autoFailedName)
	fi, err := os.Stat(p)
	if err != nil || time.Since(fi.ModTime()) >= autoWatchRetry {
		return "", false
	}
	data, _ := os.ReadFile(p)
	return strings.TrimSpace(string(data)), true
}

// autoWatchNote says, for info, how a daemon would start for the folder
// whose store is storeDir.
func (g *globals) autoWatchNote(storeDir string) string {
	const byHand = "turnback watch --detach starts a daemon"
	limit, err := autoWatchFiles(g.getenv)
	switch {
	case !autoWatchSupported || err != nil:
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
// the daemon would overwrite).
func daemonEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if strings.HasPrefix(kv, "TURNBACK_CPUPROFILE=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}
