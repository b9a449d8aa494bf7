package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	wd "github.com/turnback/turnback/watch/daemon"
)

// Config is what a Server serves.
type ServerConfig struct {
	WorkTree string    // as the store has it (symlinks resolved)
	StoreDir string    // the store's directory
	Store    io.Closer // the open store, closed when the server stops
	// Idle: stop after this long without a command (0: never).
	Idle time.Duration
	Logf func(format string, args ...any)
	// HTTP, if set, serves the requests of the socket and of Listen
	// but the daemon's own (see wire.go).
	HTTP http.Handler
	// Listen is a loopback TCP address to serve HTTP on too, Token the
	// bearer token its requests must carry (both or neither).
	Listen, Token string
}

// Server is a running watch daemon's serving side: it listens on the
// store's socket, serves the HTTP requests clients send, and stops (see
// Stop) for the reasons doc.go lists.
type Server struct {
	c     ServerConfig
	sock  string
	ln    net.Listener
	since time.Time

	requests atomic.Int64
	ready    atomic.Bool // watching, first capture made
	active   sync.WaitGroup
	mu       sync.Mutex
	busy     int
	lastDone time.Time
	stopOnce sync.Once
	stopped  chan struct{} // closed when the daemon is asked to stop
	hardOnce sync.Once
	hard     chan struct{}           // closed when it must stop at once
	cancel   context.CancelCauseFunc // cancels the commands being run
	storeID  []dirID                 // the store as the daemon opened it
	treeID   dirID                   // the work tree as the daemon opened it
	stoppers []net.Conn              // stop clients (hijacked), answered once it has stopped
	conns    map[net.Conn]struct{}
	sockID   os.FileInfo // the socket as listen made it
	noted    bool        // its note is in the registry (registry.go)

	tcp        net.Listener  // Config.Listen
	hconns     *connListener // the socket's HTTP connections
	hsrv, tsrv *http.Server  // on the socket, on tcp
	httpActive sync.WaitGroup
}

// New returns a Server for c; Listen makes its socket.
func NewServer(c ServerConfig) *Server {
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	return &Server{c: c, sock: wd.SocketPath(c.StoreDir), since: time.Now().UTC(),
		stopped: make(chan struct{}), hard: make(chan struct{}), lastDone: time.Now(),
		storeID: storeIDs(c.StoreDir), treeID: statID(c.WorkTree)}
}

// Socket is the path the server listens on.
func (d *Server) Socket() string { return d.sock }

// Requests is the number of requests served so far (pings and stops
// apart).
func (d *Server) Requests() int64 { return d.requests.Load() }

// SetReady marks the daemon ready: it watches and has made its first
// capture.
func (d *Server) SetReady() { d.ready.Store(true) }

// Stopped is closed once the daemon is asked to stop.
func (d *Server) Stopped() <-chan struct{} { return d.stopped }

// Listen creates the daemon's socket: bound under a temporary name and
// renamed into place once it listens, so that a client that finds the
// socket never meets one nobody listens on yet (except after a crash).
// The caller must hold the store: a socket there is a dead daemon's.
func (d *Server) Listen() error {
	if err := os.MkdirAll(filepath.Dir(d.sock), 0o700); err != nil {
		return fmt.Errorf("daemon: socket directory: %w", err)
	}
	if err := wd.CheckSocketDir(filepath.Dir(d.sock)); err != nil {
		return fmt.Errorf("daemon: socket directory: %w", err)
	}
	_ = os.Remove(d.sock) // a dead daemon's: this process holds the store
	// The temporary name is no longer than the socket's plus 3 bytes, so
	// it fits a socket address wherever SocketPath put the socket.
	tmp := filepath.Join(filepath.Dir(d.sock), fmt.Sprintf(".w%d.tmp", os.Getpid()))
	_ = os.Remove(tmp)
	restore := wd.PrivateUmask() // no window with a socket others may open
	ln, err := net.Listen("unix", tmp)
	restore()
	if err != nil {
		return fmt.Errorf("daemon: listen on %s: %w", d.sock, err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	if err := os.Chmod(tmp, 0o600); err != nil {
		ln.Close()
		os.Remove(tmp)
		return fmt.Errorf("daemon: %w", err)
	}
	if err := os.Rename(tmp, d.sock); err != nil {
		ln.Close()
		os.Remove(tmp)
		return fmt.Errorf("daemon: %w", err)
	}
	d.ln = ln
	if fi, err := os.Lstat(d.sock); err == nil {
		d.sockID = fi
	}

	if d.c.Listen != "" {
		addr, err := wd.CheckLoopback(d.c.Listen)
		if err == nil && (d.c.Token == "" || d.c.HTTP == nil) {
			err = errors.New("daemon: no TCP without a token")
		}
		if err == nil {
			d.tcp, err = net.Listen("tcp", addr)
		}
		if err != nil {
			ln.Close()
			d.removeSocket()
			return fmt.Errorf("daemon: listen on %s: %w", d.c.Listen, err)
		}
	}
	// Listed once it listens (registry.go).
	if err := d.writeNote(); err != nil {
		d.c.Logf("not listed by watch --list: %v", err)
	}
	return nil
}

// Serve accepts clients until ctx ends, the idle timeout passes, its
// folder or store goes or a client asks the daemon to stop; it then
// waits for the commands that run (see stop.go for how long), removes
// the socket and closes the store. The commands run with ctx's values
// but not its end: a signal reaches them through a hard stop.
func (d *Server) Serve(ctx context.Context) error {
	rctx, rcancel := context.WithCancelCause(context.WithoutCancel(ctx))
	defer rcancel(nil)
	d.cancel = rcancel
	done := make(chan struct{})
	defer close(done)
	go d.watchStop(ctx, done)
	d.startHTTP(rctx)
	backoff := time.Duration(0)
	for {
		conn, err := d.ln.Accept()
		if err != nil {
			select {
			case <-d.stopped: // the backlog is drained (see Stop)
				d.ln.Close()
			default:
				if backoff < time.Second && !errors.Is(err, net.ErrClosed) {
					// Out of descriptors, say: wait and try again.
					backoff = max(2*backoff, 5*time.Millisecond)
					d.c.Logf("accept: %v; retrying in %v", err, backoff)
					time.Sleep(backoff)
					continue
				}
				d.Stop("accept failed: "+err.Error(), false)
			}
			break
		}
		backoff = 0
		d.track(conn, true)
		d.active.Add(1)
		go func() {
			defer d.active.Done()
			defer d.track(conn, false)
			d.handle(conn)
		}()
	}
	if !d.waitActive() {
		d.c.Logf("commands still running after %v: closing the store under them", CmdGrace)
	}
	d.stopHTTP()
	d.removeSocket()
	d.removeNote()
	err := d.closeStore()
	d.mu.Lock()
	stoppers := d.stoppers
	d.stoppers = nil
	d.mu.Unlock()
	body, _ := json.Marshal(wd.StopReply{Closed: err == nil})
	for _, c := range stoppers {
		_ = c.SetWriteDeadline(time.Now().Add(time.Second))
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s\n", len(body)+1, body)
		c.Close()
	}
	return err
}

// track adds (or removes) a live connection.
func (d *Server) track(c net.Conn, add bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.conns == nil {
		d.conns = map[net.Conn]struct{}{}
	}
	if add {
		d.conns[c] = struct{}{}
		select {
		case <-d.stopped:
			_ = c.SetWriteDeadline(time.Now().Add(clientGrace))
		default:
		}
	} else {
		delete(d.conns, c)
	}
}

// Info is what the daemon says of itself.
func (d *Server) Info() *wd.Info {
	in := &wd.Info{PID: os.Getpid(), WorkTree: d.c.WorkTree, Store: d.c.StoreDir, Socket: d.sock,
		Since: d.since, Requests: d.requests.Load(), Ready: d.ready.Load(), HTTP: d.c.HTTP != nil}
	if d.tcp != nil {
		in.Listen = d.tcp.Addr().String()
	}
	d.mu.Lock()
	if d.busy == 0 {
		in.IdleSeconds = time.Since(d.lastDone).Round(time.Millisecond).Seconds()
	}
	d.mu.Unlock()
	if d.c.Idle > 0 {
		in.IdleTimeout = d.c.Idle.String()
	}
	in.RSSBytes = wd.SelfRSS()
	return in
}

// handle hands one connection to the HTTP server.
func (d *Server) handle(conn net.Conn) {
	if !d.hconns.push(conn) && !d.refuseHTTP(conn) {
		conn.Close()
	}
}

// Begin counts work in progress (the daemon is not idle meanwhile); it
// returns false once the daemon is stopping. End ends what Begin began.
func (d *Server) Begin() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	select {
	case <-d.stopped:
		return false
	default:
	}
	d.busy++
	return true
}

// End ends the work Begin counted.
func (d *Server) End() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.busy--
	d.lastDone = time.Now()
}

// stoppingError is why a hard stop cancelled the commands running.
type stoppingError struct{ why string }

func (e stoppingError) Error() string { return "daemon: stopping: " + e.why }

// Stopping reports whether ctx (a Handler's) was cancelled by a hard
// stop of the daemon, and why it stopped.
func Stopping(ctx context.Context) (string, bool) {
	var s stoppingError
	if errors.As(context.Cause(ctx), &s) {
		return s.why, true
	}
	return "", false
}
