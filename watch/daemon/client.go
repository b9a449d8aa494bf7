package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ErrNotRun: the daemon closed the connection without accepting the
// request, so nothing ran (it was stopping, or died); the caller runs
// the command itself.
var ErrNotRun = errors.New("daemon: the request was not accepted")

// ErrInterrupted: the caller's context ended while the daemon ran the
// command; closing the connection cancels it there.
var ErrInterrupted = errors.New("daemon: interrupted; the watch daemon stops the command")

// LostError: the connection ended after the daemon accepted the
// command and before its exit code (the daemon died).
type LostError struct {
	Socket string
	Err    error
}

func (e *LostError) Error() string {
	return fmt.Sprintf("daemon: the watch daemon (%s) ended before the command finished: %v", e.Socket, e.Err)
}

func (e *LostError) Unwrap() error { return e.Err }

// ProtocolError: the daemon sent something this client does not
// understand. Detail says what, without the package prefix.
type ProtocolError struct{ Detail string }

func (e *ProtocolError) Error() string { return "daemon: " + e.Detail }

// Dial connects to the daemon of storeDir; ok is false when none runs
// (no socket, or one left by a daemon that is gone).
func Dial(storeDir string) (net.Conn, bool) {
	p := SocketPath(storeDir)
	if CheckSocketDir(filepath.Dir(p)) != nil {
		// Never talk to (and send the environment to) a socket in a
		// directory another user could have put it in.
		return nil, false
	}
	conn, err := net.DialTimeout("unix", p, 5*time.Second)
	if err != nil {
		return nil, false
	}
	return conn, true
}

// Answers reports whether a daemon of storeDir accepts connections on
// its socket now (it may still be starting: it runs commands all the
// same). Cheap: a connect, no request.
func Answers(storeDir string) bool {
	if storeDir == "" {
		return false
	}
	conn, ok := Dial(storeDir)
	if ok {
		conn.Close()
	}
	return ok
}

// Ping asks the daemon of storeDir who it is.
func Ping(storeDir string) (*Info, bool) {
	conn, ok := Dial(storeDir)
	if !ok {
		return nil, false
	}
	defer conn.Close()
	return ask(conn, 10*time.Second)
}

// PingWithin is Ping with a shorter wait for the answer.
func PingWithin(storeDir string, wait time.Duration) (*Info, bool) {
	p := SocketPath(storeDir)
	if CheckSocketDir(filepath.Dir(p)) != nil {
		return nil, false
	}
	return PingSocket(p, wait)
}

// PingSocket asks the daemon listening at path who it is.
func PingSocket(path string, wait time.Duration) (*Info, bool) {
	conn, err := net.DialTimeout("unix", path, wait)
	if err != nil {
		return nil, false
	}
	defer conn.Close()
	return ask(conn, wait)
}

// ask sends a ping over conn and reads the answer within wait.
func ask(conn net.Conn, wait time.Duration) (*Info, bool) {
	_ = conn.SetDeadline(time.Now().Add(wait))
	if err := SendRequest(conn, Request{Version: Version, Op: "ping"}); err != nil {
		return nil, false
	}
	kind, data, err := ReadFrame(conn)
	if err != nil || kind != FrameInfo {
		return nil, false
	}
	var info Info
	if json.Unmarshal(data, &info) != nil {
		return nil, false
	}
	return &info, true
}

// AskStop asks the daemon at the other end of conn to stop, and waits
// for its answer, which comes once it has released the store. closed
// is false when the daemon said it stopped without closing the store
// (its log says why).
func AskStop(conn net.Conn) (closed bool, err error) {
	if err := SendRequest(conn, Request{Version: Version, Op: "stop"}); err != nil {
		return false, err
	}
	kind, data, err := ReadFrame(conn)
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	return !(err == nil && kind == FrameExit && string(data) != "0"), nil
}

// ForwardedEnv is the part of the environment a command reads:
// turnback's own variables and those that shape output, plus, with
// creds, the AWS_* variables a command of the remote reads (endpoint,
// region, credentials). Nothing else (API keys...) goes to the daemon.
func ForwardedEnv(creds bool) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "TURNBACK_"), k == "NO_COLOR", k == "TERM", k == "TZ",
			creds && strings.HasPrefix(k, "AWS_"):
			env = append(env, kv)
		}
	}
	return env
}

// Run has the daemon of storeDir run req (Op "run"), copying what the
// command prints to stdout and stderr, and returns its exit code. The
// error is ErrNotRun when no daemon ran it (none answers, or it did not
// accept), ErrInterrupted when ctx ended, a *LostError or a
// *ProtocolError when the command may have run but its end is unknown.
func Run(ctx context.Context, storeDir string, req Request, stdout, stderr io.Writer) (int, error) {
	conn, ok := Dial(storeDir)
	if !ok {
		return 0, ErrNotRun
	}
	defer conn.Close()
	req.Version, req.Op = Version, "run"
	if err := SendRequest(conn, req); err != nil {
		// Nothing was run: the daemon is going away.
		return 0, ErrNotRun
	}
	// An interrupted client closes the connection, which cancels the
	// command in the daemon (as a signal would here).
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	r := bufio.NewReaderSize(conn, 64<<10)
	accepted := false
	for {
		kind, data, err := ReadFrame(r)
		if err != nil {
			if !accepted && ctx.Err() == nil {
				// The daemon closed without accepting: it was
				// stopping (or died) and ran nothing.
				return 0, ErrNotRun
			}
			if ctx.Err() != nil {
				return 0, ErrInterrupted
			}
			return 0, &LostError{Socket: SocketPath(storeDir), Err: err}
		}
		switch kind {
		case FrameAccept:
			accepted = true
		case FrameStdout:
			_, _ = stdout.Write(data)
		case FrameStderr:
			_, _ = stderr.Write(data)
		case FrameExit:
			n, err := strconv.Atoi(string(data))
			if err != nil {
				return 0, &ProtocolError{fmt.Sprintf("the watch daemon sent a bad exit code %q", data)}
			}
			return n, nil
		default:
			return 0, &ProtocolError{fmt.Sprintf("the watch daemon sent an unknown frame %q", kind)}
		}
	}
}
