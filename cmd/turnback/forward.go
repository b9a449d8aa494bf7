package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The watch daemon and the CLI talk over a unix socket beside the store
// (watch.sock, mode 0600). A client sends one request frame; the daemon
// answers with an accept frame before it runs anything, then stdout and
// stderr frames as the command writes them, and ends with an exit frame.
// A connection that ends before the accept ran nothing; one that ends
// after it ran something that did not finish (the daemon died). Every frame is a kind byte, a big-endian
// uint32 length and that many bytes.
const (
	frameRequest = 'q' // client -> daemon: a JSON request
	frameAccept  = 'a' // the daemon runs the request (sent before it starts)
	frameStdout  = 'o'
	frameStderr  = 'e'
	frameExit    = 'x' // the exit code, in decimal
	frameInfo    = 'i' // answer to a ping: JSON daemonInfo

	maxFrame    = 64 << 20
	maxRequest  = 1 << 20 // a request: a command line and some environment
	wireVersion = 1
)

// request is what a client asks of the daemon.
type request struct {
	Version int    `json:"v"`
	Op      string `json:"op"` // "run", "ping" or "stop"
	// For "run": the command line, and the client's directory,
	// environment and terminals, so that the command behaves as it
	// would have in the client; the work tree and store the client
	// located.
	Args     []string `json:"args,omitempty"`
	Cwd      string   `json:"cwd,omitempty"`
	Env      []string `json:"env,omitempty"`
	WorkTree string   `json:"work_tree,omitempty"`
	Store    string   `json:"store,omitempty"`
	OutTTY   bool     `json:"stdout_tty,omitempty"`
	ErrTTY   bool     `json:"stderr_tty,omitempty"`
}

// daemonInfo answers a ping.
type daemonInfo struct {
	PID      int       `json:"pid"`
	WorkTree string    `json:"work_tree"`
	Store    string    `json:"store"`
	Socket   string    `json:"socket"`
	Since    time.Time `json:"since"`
	Requests int64     `json:"requests"`
	// Ready: the daemon watches the folder and has made its first capture.
	Ready bool `json:"ready"`
	// IdleSeconds: since the last command ended (0 while one runs);
	// IdleTimeout: the daemon stops after that long idle ("": never).
	IdleSeconds float64 `json:"idle_seconds"`
	IdleTimeout string  `json:"idle_timeout,omitempty"`
	// RSSBytes: the daemon's resident memory (Linux; 0 elsewhere).
	RSSBytes int64 `json:"rss_bytes,omitempty"`
}

// forwardedExit is returned by globals.open when the daemon ran the
// command: its output has been written; the process exits with code.
type forwardedExit struct{ code int }

func (e forwardedExit) Error() string {
	return "exit " + strconv.Itoa(e.code) + " (run by the watch daemon)"
}

// socketPath is where the daemon of storeDir listens: watch.sock in the
// store, or, when that path is too long for a unix socket address (about
// 100 bytes) or the store directory is open to other users, a name
// derived from the store in a per-user directory (0700) under the
// temporary directory.
func socketPath(storeDir string) string {
	p := filepath.Join(storeDir, "watch.sock")
	if len(p) < 100 && checkSocketDir(storeDir) == nil {
		return p
	}
	key := storeDir
	if real, err := filepath.EvalSymlinks(storeDir); err == nil {
		key = real
	}
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(os.TempDir(), fmt.Sprintf("turnback-%d", os.Getuid()), hex.EncodeToString(sum[:10])+".sock")
}

// removeStaleSocket removes the socket of a daemon that is gone. Only a
// process holding the store may call it: a live daemon holds the store.
func removeStaleSocket(storeDir string) {
	p := socketPath(storeDir)
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSocket != 0 {
		_ = os.Remove(p)
	}
}

func writeFrame(w io.Writer, kind byte, data []byte) error {
	var hdr [5]byte
	hdr[0] = kind
	binary.BigEndian.PutUint32(hdr[1:], uint32(len(data)))
	if _, err := w.Write(hdr[:]); err != nil {
		return err
	}
	_, err := w.Write(data)
	return err
}

func readFrame(r io.Reader) (byte, []byte, error) {
	return readFrameMax(r, maxFrame)
}

// readFrameMax reads a frame of at most limit bytes.
func readFrameMax(r io.Reader, limit uint32) (byte, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[1:])
	if n > limit {
		return 0, nil, fmt.Errorf("frame of %d bytes is too large", n)
	}
	data := make([]byte, n)
	if _, err := io.ReadFull(r, data); err != nil {
		return 0, nil, err
	}
	return hdr[0], data, nil
}

// frameWriter writes what a command prints as frames of one kind; the
// mutex it shares with the other stream keeps frames whole.
type frameWriter struct {
	mu   *sync.Mutex
	w    io.Writer
	kind byte
}

func (f *frameWriter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	total := len(p)
	for len(p) > 0 {
		n := min(len(p), 1<<20)
		if err := writeFrame(f.w, f.kind, p[:n]); err != nil {
			return 0, err
		}
		p = p[n:]
	}
	return total, nil
}

// dial connects to the daemon of storeDir; ok is false when none runs
// (no socket, or one left by a daemon that is gone).
func dial(storeDir string) (net.Conn, bool) {
	p := socketPath(storeDir)
	if checkSocketDir(filepath.Dir(p)) != nil {
		// Never talk to (and send the environment to) a socket in a
		// directory another user could have put it in.
		return nil, false
	}
	conn, err := dialSocket(p, 5*time.Second)
	if err != nil {
		return nil, false
	}
	return conn, true
}

func dialSocket(path string, wait time.Duration) (net.Conn, error) {
	return net.DialTimeout("unix", path, wait)
}

// ping asks the daemon of storeDir who it is.
func ping(storeDir string) (*daemonInfo, bool) {
	conn, ok := dial(storeDir)
	if !ok {
		return nil, false
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if err := sendRequest(conn, request{Version: wireVersion, Op: "ping"}); err != nil {
		return nil, false
	}
	kind, data, err := readFrame(conn)
	if err != nil || kind != frameInfo {
		return nil, false
	}
	var info daemonInfo
	if json.Unmarshal(data, &info) != nil {
		return nil, false
	}
	return &info, true
}

func sendRequest(w io.Writer, req request) error {
	data, err := json.Marshal(req)
	if err != nil {
		return err
	}
	return writeFrame(w, frameRequest, data)
}

// forwardedEnv is the part of the environment a command reads: turnback's
// own variables and those that shape output. Nothing else (API keys...)
// goes to the daemon.
func forwardedEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "TURNBACK_"), k == "NO_COLOR", k == "TERM", k == "TZ":
			env = append(env, kv)
		}
	}
	return env
}

// forward runs the command through the watch daemon of storeDir, if one
// runs, copying its output to g's streams. ok is false when no daemon
// answered; the command then runs here.
func (g *globals) forward(ctx context.Context, workTree, storeDir string) (code int, ok bool) {
	conn, ok := dial(storeDir)
	if !ok {
		return 0, false
	}
	defer conn.Close()
	args := g.args
	if g.sentArgs != nil {
		args = g.sentArgs
	}
	cwd, err := g.getwd()
	if err != nil {
		cwd = workTree
	}
	req := request{Version: wireVersion, Op: "run", Args: args, Cwd: cwd, Env: forwardedEnv(),
		WorkTree: workTree, Store: storeDir, OutTTY: g.outTTY, ErrTTY: g.errTTY}
	if err := sendRequest(conn, req); err != nil {
		// Nothing was run: the daemon is going away.
		return 0, false
	}
	// An interrupted client closes the connection, which cancels the
	// command in the daemon (as a signal would here).
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	r := bufio.NewReaderSize(conn, 64<<10)
	accepted := false
	stderr := g.stderr
	var held bytes.Buffer
	if g.quiet {
		stderr = &held
	}
	for {
		kind, data, err := readFrame(r)
		if err != nil {
			if !accepted && ctx.Err() == nil {
				// The daemon closed without accepting: it was
				// stopping (or died) and ran nothing.
				return 0, false
			}
			if ctx.Err() != nil {
				fmt.Fprintln(g.stderr, "turnback: interrupted; the watch daemon stops the command")
				return exitError, true
			}
			fmt.Fprintf(g.stderr, "turnback: the watch daemon (%s) ended before the command finished: %v\n"+
				"turnback: an interrupted undo, redo or restore is finished or rolled back by the next command\n", socketPath(storeDir), err)
			return exitError, true
		}
		switch kind {
		case frameAccept:
			accepted = true
		case frameStdout:
			_, _ = g.stdout.Write(data)
		case frameStderr:
			_, _ = stderr.Write(data)
		case frameExit:
			n, err := strconv.Atoi(string(data))
			if err != nil {
				fmt.Fprintf(g.stderr, "turnback: the watch daemon sent a bad exit code %q\n", data)
				return exitError, true
			}
			if n != exitOK && g.quiet {
				_, _ = g.stderr.Write(held.Bytes())
			}
			return n, true
		default:
			fmt.Fprintf(g.stderr, "turnback: the watch daemon sent an unknown frame %q\n", kind)
			return exitError, true
		}
	}
}
