package autowatch

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/watch/daemon"
)

// EarlyEnv names the environment variable through which a command that
// starts a daemon while it still captures (Local.Early) gives the daemon
// its process id: the daemon then builds its watches at once and waits
// for the store as long as that process runs (see package daemons).
const EarlyEnv = "TURNBACK_WATCH_STARTED_BY"

// earlyPoll is how often Early looks at the capture's progress.
const earlyPoll = 20 * time.Millisecond

// EarlyPID returns the process id EarlyEnv gives, 0 if none.
func EarlyPID(getenv func(string) string) int {
	pid, err := strconv.Atoi(strings.TrimSpace(getenv(EarlyEnv)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// Early watches the progress of this command's captures (prog) and, as
// soon as one has seen enough files for the rules (see doc.go) to ask
// for a daemon, starts it, while the capture still runs: the daemon
// watches every directory meanwhile and opens the store once this
// command lets it go, so it is ready a first capture after the command
// ends instead of after its own build and capture. Start, at the end of
// the command, keeps or stops it. Only the commands whose capture
// counts for the rules (command: snap, end, status, hook) do this. On a
// nil Local or prog, or where no daemon starts by itself, nothing.
func (l *Local) Early(command string, getenv func(string) string, force bool, prog *turnback.Progress) {
	switch command {
	case "snap", "end", "status", "hook":
	default:
		return
	}
	if l == nil || prog == nil || !supported {
		return
	}
	limit, err := Files(getenv)
	if err != nil || limit == 0 {
		return
	}
	l.stop, l.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(l.done)
		t := time.NewTicker(earlyPoll)
		defer t.Stop()
		for {
			select {
			case <-l.stop:
				return
			case <-t.C:
			}
			files, dirs := prog.Files.Load(), prog.Dirs.Load()
			if files < limit {
				continue
			}
			if !l.allowed(getenv, files, dirs, false) {
				return
			}
			if _, ok := daemon.Ping(l.StoreDir); ok {
				return
			}
			env := []string{fmt.Sprintf("%s=%d", EarlyEnv, os.Getpid())}
			if c, _, _, err := startDaemon(l.WorkTree, l.StoreDir, force, Idle, 0, env, "--auto"); err == nil {
				l.early = c
			}
			return
		}
	}()
}

// Counted returns p, or new counters if p is nil: a command's captures
// need counters for Early to watch.
func Counted(p *turnback.Progress) *turnback.Progress {
	if p == nil {
		return &turnback.Progress{}
	}
	return p
}

// Abandon is the end of a command that failed: a daemon Early started
// is stopped (SIGTERM), unless the capture ran out of its time budget
// (the folder is large: Start would have kept it). On a nil Local,
// nothing.
func (l *Local) Abandon() {
	if l == nil {
		return
	}
	l.stopEarly()
	if l.early == nil {
		return
	}
	if !l.TimedOut {
		_ = l.early.Process.Signal(syscall.SIGTERM)
	}
	_ = l.early.Process.Release()
	l.early = nil
}

// stopEarly ends Early's watch and waits for it (after it, l.early is
// final).
func (l *Local) stopEarly() {
	if l.stop != nil {
		close(l.stop)
		<-l.done
		l.stop = nil
	}
}
