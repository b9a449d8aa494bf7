package daemon

import "time"

// The daemon speaks HTTP only, on its socket (and, with a token, on
// loopback TCP). Besides what its handler serves, the daemon
// (internal/daemon) answers two requests itself:
//
//	GET  /v1/daemon       its Info
//	POST /v1/daemon/stop  stop; answered once the store is released,
//	                      {"closed": false} when it could not close it
//
// A request may carry ProtocolHeader: one of another Version makes the
// daemon give its store up (503, nothing ran). Clients of another
// turnback send it; ping and stop need none, so any turnback can list
// and stop any daemon.
const (
	// Version is the protocol's version (3: error documents name the
	// exit code "exit_code"; an unknown session is a 404).
	Version = 3
	// ProtocolHeader names the Version a client speaks.
	ProtocolHeader = "Turnback-Protocol"
)

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
	// HTTP: the daemon serves the HTTP API; Listen is the
	// loopback TCP address it is served on too ("": none).
	HTTP   bool   `json:"http,omitempty"`
	Listen string `json:"listen,omitempty"`
}

// StopReply answers POST /v1/daemon/stop.
type StopReply struct {
	Closed bool `json:"closed"`
}
