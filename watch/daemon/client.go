package daemon

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// Dial connects to the daemon of storeDir; ok is false when none runs
// (no socket, or one left by a daemon that is gone).
func Dial(storeDir string) (net.Conn, bool) {
	p := SocketPath(storeDir)
	if CheckSocketDir(filepath.Dir(p)) != nil {
		// Never talk to a socket in a directory another user could
		// have put it in.
		return nil, false
	}
	if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
		// No daemon, the usual case: one system call, not a socket's
		// several (every command asks at start).
		return nil, false
	}
	conn, err := net.DialTimeout("unix", p, 5*time.Second)
	if err != nil {
		return nil, false
	}
	if PeerStopped(conn) {
		// It would queue the request and answer nothing until it runs
		// again: a caller waits for the store it holds instead, as
		// for any holder, within its lock wait.
		conn.Close()
		return nil, false
	}
	return conn, true
}

// Answers reports whether a daemon of storeDir accepts connections on
// its socket now (it may still be starting: it serves all the same).
// Cheap: a connect, no request.
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
	return ask(conn, SocketPath(storeDir), 10*time.Second)
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
	return ask(conn, path, wait)
}

// ask sends a ping over conn (to the socket at path) and reads the
// answer within wait. A daemon of protocol 1 is asked to give its store
// up (RetireOld) and reported as not running.
func ask(conn net.Conn, path string, wait time.Duration) (*Info, bool) {
	_ = conn.SetDeadline(time.Now().Add(wait))
	var info Info
	err := roundTrip(conn, "GET", "/v1/daemon", &info)
	if errors.Is(err, errOld) {
		RetireOld(path)
	}
	if err != nil {
		return nil, false
	}
	return &info, true
}

// errOld: the answer came from a daemon of protocol 1.
var errOld = errors.New("daemon: a daemon of protocol 1")

// IsOld reports whether an HTTP answer of status came from a daemon
// of protocol 1 that does not serve the request (it names no
// ProtocolHeader): nothing ran.
func IsOld(status int, h http.Header) bool {
	return status == http.StatusNotFound && h.Get(ProtocolHeader) == ""
}

// AskStop asks the daemon at the other end of conn to stop, and waits
// for its answer, which comes once it has released the store. closed
// is false when the daemon said it stopped without closing the store
// (its log says why).
func AskStop(conn net.Conn) (closed bool, err error) {
	var rep StopReply
	err = roundTrip(conn, "POST", "/v1/daemon/stop", &rep)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true, nil // gone without a word: nothing holds the store
	}
	if err != nil {
		return false, err
	}
	return rep.Closed, nil
}

// roundTrip sends one request without a body over conn and decodes
// the answer (200) into out.
func roundTrip(conn net.Conn, method, path string, out any) error {
	if _, err := fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: turnback\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", method, path); err != nil {
		return err
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if IsOld(resp.StatusCode, resp.Header) {
		return errOld
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("daemon: %s %s: %s", method, path, resp.Status)
	}
	return json.Unmarshal(data, out)
}
