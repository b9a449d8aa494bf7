package daemon

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/handoff"
	wd "github.com/turnback/turnback/watch/daemon"
)

// EarlyEnv names the environment variable through which a command that
// starts a daemon while it still captures (Local.Early) gives the daemon
// its process id: the daemon then builds its watches at once and waits
// for the store as long as that process runs (see package daemons).
const EarlyEnv = "TURNBACK_WATCH_STARTED_BY"

// BuiltEnv names the environment variable through which Early gives
// the daemon it starts the write end of a pipe, as "fd:inode": the
// daemon writes one byte into it once it watches every directory, and
// the command's capture from then on can be handed over (see
// internal/handoff). The inode lets the daemon make sure that the
// descriptor is that pipe before it writes or closes it.
const BuiltEnv = "TURNBACK_WATCH_BUILT"

// builtFD is the descriptor the pipe has in the daemon (the first of
// exec.Cmd.ExtraFiles).
const builtFD = 3

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
//
// When it may start a daemon, Early arms repo's handoff first (see
// package internal/handoff): the daemon it starts says through a pipe (BuiltEnv)
// when it watches every directory, and the capture hands itself over.
func (l *Local) Early(command string, getenv func(string) string, force bool, prog *turnback.Progress, repo *turnback.Repo) {
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
	var hand *handoff.Handoff
	if repo != nil {
		hand = handoff.Arm(repo)
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
			if _, ok := wd.Ping(l.StoreDir); ok {
				return
			}
			env := []string{fmt.Sprintf("%s=%d", EarlyEnv, os.Getpid())}
			var extra []*os.File
			pr, pw, perr := os.Pipe()
			if perr == nil && hand != nil {
				if ino, ok := pipeInode(pw); ok {
					env = append(env, fmt.Sprintf("%s=%d:%d", BuiltEnv, builtFD, ino))
					extra = []*os.File{pw}
				}
			}
			c, _, _, err := startDaemon(l.WorkTree, l.StoreDir, force, Idle, 0, env, extra, "--auto")
			if perr == nil {
				pw.Close()
			}
			if err == nil {
				l.early = c
			}
			if err != nil || len(extra) == 0 {
				if perr == nil {
					pr.Close()
				}
				return
			}
			hand.Started(c.Process.Pid)
			go func() {
				// One byte once the daemon watches everything; EOF if
				// it ends first.
				var b [1]byte
				if n, _ := pr.Read(b[:]); n == 1 {
					hand.Built()
				}
				pr.Close()
			}()
			return
		}
	}()
}

// BuiltPipe returns the descriptor and the inode BuiltEnv gives, ok
// false if none.
func BuiltPipe(getenv func(string) string) (fd int, ino uint64, ok bool) {
	a, b, found := strings.Cut(strings.TrimSpace(getenv(BuiltEnv)), ":")
	if !found {
		return 0, 0, false
	}
	fd, err1 := strconv.Atoi(a)
	ino, err2 := strconv.ParseUint(b, 10, 64)
	if err1 != nil || err2 != nil || fd <= 2 {
		return 0, 0, false
	}
	return fd, ino, true
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
