package bgpush

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/turnback/turnback/cmd/turnback/termout"
	"github.com/turnback/turnback/internal/fullbin"
)

// PushLog is the file in the store directory that background pushes
// append to.
const PushLog = "push.log"

// Background is a background push to start after a successful end.
type Background struct {
	Getenv func(string) string
	// WorkTree, Store and Session are the end's (Session "" for the
	// session push takes by default).
	WorkTree, Store, Session string
	// Stderr gets one line saying the push started when Tell is set (a
	// terminal, not an agent's hook).
	Stderr io.Writer
	Tell   bool
}

// StartBackgroundPush starts "turnback-full push" for b's session as a
// detached process when TURNBACK_REMOTE_PUSH=1, and returns without
// waiting for it. The push runs in its own session (process group) with
// the caller's environment (the AWS_* variables); its stdin and stdout
// are the null device, and it appends its outcome, time-stamped, to
// push.log in the store (see the hidden flag --log of push). Nothing it
// does changes the caller's result: a push that cannot start is logged
// there too.
func StartBackgroundPush(b Background) {
	if b.Getenv("TURNBACK_REMOTE_PUSH") != "1" || b.Store == "" {
		return
	}
	logPath := filepath.Join(b.Store, PushLog)
	what := "push"
	if b.Session != "" {
		what += " --session " + b.Session
	}
	if err := startPush(b, logPath); err != nil {
		AppendLog(logPath, what+": not started: "+err.Error())
		return
	}
	if b.Tell {
		fmt.Fprintf(b.Stderr, "turnback: pushing in the background (log: %s)\n", termout.SafeText(logPath))
	}
}

func startPush(b Background, logPath string) error {
	exe, err := fullbin.Path()
	if err != nil {
		return err
	}
	args := []string{"-C", b.WorkTree, "--store", b.Store}
	if b.Session != "" {
		args = append(args, "--session", b.Session)
	}
	args = append(args, "push", "--log", logPath)
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	cmd := exec.Command(exe, args...)
	cmd.Dir = b.WorkTree
	cmd.Env = os.Environ()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, null
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// AppendLog appends one time-stamped line to the log at path; a log that
// cannot be written is given up silently.
func AppendLog(path, line string) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s %s\n", time.Now().UTC().Format(time.RFC3339), termout.SafeText(line))
}
