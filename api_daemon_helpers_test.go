//go:build unix

package turnback_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/turnback/turnback"
	daemons "github.com/turnback/turnback/internal/daemon"
	"github.com/turnback/turnback/internal/testhook"
	"github.com/turnback/turnback/watch/daemon"
)

// The test binary doubles as a daemon: started with these variables set
// it serves the folder (as turnback serve does) until SIGTERM.
const (
	envDaemonDir    = "TURNBACK_TEST_DAEMON_DIR"
	envDaemonStore  = "TURNBACK_TEST_DAEMON_STORE"
	envDaemonListen = "TURNBACK_TEST_DAEMON_LISTEN"
	// envDaemonSizeLimit, if set, is the daemon's Options.SizeLimit.
	envDaemonSizeLimit = "TURNBACK_TEST_DAEMON_SIZE_LIMIT"
)

func TestMain(m *testing.M) {
	// Tests open thousands of stores holding little: smaller tables
	// spare zeroing an 8 MiB buffer at each memtable flush.
	testhook.BadgerTableSize = 1 << 20
	if dir := os.Getenv(envDaemonDir); dir != "" {
		os.Exit(runTestDaemon(dir, os.Getenv(envDaemonStore), os.Getenv(envDaemonListen)))
	}
	// The tests expect the modes files get with umask 022, whatever the
	// shell's (SetForeignUmask for others).
	syscall.Umask(0o022)
	turnback.ReadForeignUmask()
	os.Exit(m.Run())
}

func runTestDaemon(dir, store, listen string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	limit, _ := strconv.ParseInt(os.Getenv(envDaemonSizeLimit), 10, 64)
	err := daemons.Run(ctx, daemons.Options{WorkTree: dir,
		// Retention is not modelled (as the model test opens stores).
		Options: turnback.Options{Store: store, KeepTurns: -1, KeepAge: -1, SizeLimit: limit},
		Log:     os.Stderr, Listen: listen})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// startDaemon runs a daemon serving dir (store) in a child process and
// waits until it is ready; it is stopped (SIGTERM) when the test ends,
// or by the function returned, which waits for it to exit.
func startDaemon(t testing.TB, dir, store, listen string) (*daemon.Info, func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envDaemonDir+"="+dir, envDaemonStore+"="+store, envDaemonListen+"="+listen)
	log, err := os.CreateTemp(t.TempDir(), "daemon-log-")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr, cmd.Stdout = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := false
	stopFn := func() {
		if stopped {
			return
		}
		stopped = true
		_ = cmd.Process.Signal(syscall.SIGTERM)
		<-exited
	}
	t.Cleanup(stopFn)
	// Not a timed assertion: a bound on a wait that ends as soon as the
	// daemon answers, ready.
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); {
		if info, ok := daemon.PingWithin(store, time.Second); ok && info.PID == cmd.Process.Pid && info.Ready {
			return info, stopFn
		}
		select {
		case err := <-exited:
			stopped = true
			data, _ := os.ReadFile(log.Name())
			t.Fatalf("the daemon exited (%v): %s", err, data)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatal("the daemon did not become ready")
	return nil, nil
}
