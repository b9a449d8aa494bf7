package daemon

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestPingRetiresOld: a daemon of protocol 1 (it answers HTTP, 404
// without ProtocolHeader, to GET /v1/daemon, and reads frames) is not
// reported as running, and is asked in its own words (a request frame
// of version 2) to give its store up; a daemon of this protocol
// answers the ping and gets no such frame.
func TestPingRetiresOld(t *testing.T) {
	dir, err := os.MkdirTemp("", "old") // short: socket paths are bounded
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	frames := make(chan map[string]any, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			r := bufio.NewReader(c)
			first, err := r.Peek(1)
			switch {
			case err != nil:
			case first[0] == 'q': // a frame: record it, run nothing
				var hdr [5]byte
				if _, err := io.ReadFull(r, hdr[:]); err == nil {
					body := make([]byte, binary.BigEndian.Uint32(hdr[1:]))
					if _, err := io.ReadFull(r, body); err == nil {
						var req map[string]any
						_ = json.Unmarshal(body, &req)
						frames <- req
					}
				}
			default: // HTTP, as protocol 1's API answered an unknown path
				body := `{"error":"turnback: api: no such endpoint: /v1/daemon","code":2,"kind":"not_found"}` + "\n"
				fmt.Fprintf(c, "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
			}
			c.Close()
		}
	}()
	if info, ok := PingSocket(sock, time.Second); ok || info != nil {
		t.Fatalf("PingSocket of an old daemon: %v, %v", info, ok)
	}
	select {
	case req := <-frames:
		if req["v"] != float64(2) || req["op"] != "run" {
			t.Fatalf("the old daemon got %v; want a run request of version 2", req)
		}
	default:
		t.Fatal("the old daemon was not asked to give its store up")
	}
}
