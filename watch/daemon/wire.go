package daemon

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"
)

// Frame kinds. Every frame is a kind byte, a big-endian uint32 length
// and that many bytes.
const (
	FrameRequest = 'q' // client -> daemon: a JSON Request
	FrameAccept  = 'a' // the daemon runs the request (sent before it starts)
	FrameStdout  = 'o'
	FrameStderr  = 'e'
	FrameExit    = 'x' // the exit code, in decimal
	FrameInfo    = 'i' // answer to a ping: a JSON Info

	// MaxFrame bounds any frame; MaxRequest a request (a command line
	// and some environment).
	MaxFrame   = 64 << 20
	MaxRequest = 1 << 20
	// Version is the protocol's version: a daemon gives its store up
	// to a client that speaks another.
	Version = 1
)

// Request is what a client asks of the daemon.
type Request struct {
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

// Info is a daemon's answer to a ping.
type Info struct {
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
	// HTTP: the socket speaks the HTTP API too; Listen is the loopback
	// TCP address it is served on ("": none).
	HTTP   bool   `json:"http,omitempty"`
	Listen string `json:"listen,omitempty"`
}

// WriteFrame writes one frame.
func WriteFrame(w io.Writer, kind byte, data []byte) error {
	var hdr [5]byte
	hdr[0] = kind
	binary.BigEndian.PutUint32(hdr[1:], uint32(len(data)))
	if _, err := w.Write(hdr[:]); err != nil {
		return err
	}
	_, err := w.Write(data)
	return err
}

// ReadFrame reads one frame of at most MaxFrame bytes.
func ReadFrame(r io.Reader) (byte, []byte, error) {
	return ReadFrameMax(r, MaxFrame)
}

// ReadFrameMax reads a frame of at most limit bytes. It returns io.EOF
// only at a clean end between frames.
func ReadFrameMax(r io.Reader, limit uint32) (byte, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[1:])
	if n > limit {
		return 0, nil, fmt.Errorf("daemon: frame of %d bytes is too large", n)
	}
	data := make([]byte, n)
	if _, err := io.ReadFull(r, data); err != nil {
		return 0, nil, err
	}
	return hdr[0], data, nil
}

// SendRequest writes req as a request frame.
func SendRequest(w io.Writer, req Request) error {
	data, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("daemon: %w", err)
	}
	return WriteFrame(w, FrameRequest, data)
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
		if err := WriteFrame(f.w, f.kind, p[:n]); err != nil {
			return 0, err
		}
		p = p[n:]
	}
	return total, nil
}
