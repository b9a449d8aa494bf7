package daemon

// Daemons of protocol 1 (an earlier turnback: automatic daemons outlive
// upgrades) answer HTTP on their socket but not GET /v1/daemon, and ran
// command lines sent as frames. A client of this protocol asks such a
// daemon to give its store up in its own words: one request frame of
// another version, which makes it stop (it runs nothing).

import (
	"encoding/binary"
	"io"
	"net"
	"time"
)

// v1Request is protocol 1's request frame kind.
const v1Request = 'q'

// RetireOld asks the daemon listening at path, one of protocol 1, to
// give its store up, and waits (briefly) until it closed the
// connection. It reports whether a daemon was reached.
func RetireOld(path string) bool {
	conn, err := net.DialTimeout("unix", path, time.Second)
	if err != nil {
		return false
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	body := []byte(`{"v":2,"op":"run"}`)
	var hdr [5]byte
	hdr[0] = v1Request
	binary.BigEndian.PutUint32(hdr[1:], uint32(len(body)))
	if _, err := conn.Write(append(hdr[:], body...)); err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, conn) // it closes without an answer
	return true
}
