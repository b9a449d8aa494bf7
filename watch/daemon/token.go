package daemon

// The bearer token of loopback TCP clients, and the addresses a daemon
// may listen on (see "HTTP" in doc.go; the server is internal/daemon).

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
)

// TokenFile is the bearer token's file in the store (0600).
const TokenFile = "api.token"

// LoadToken returns the store's bearer token for TCP clients; with
// create, one is made (32 random bytes, hex, mode 0600) when there is
// none. A token or store other users can reach is an error that says
// how to fix it (on unix: checkTokenPrivate).
func LoadToken(storeDir string, create bool) (string, error) {
	p := filepath.Join(storeDir, TokenFile)
	if err := checkTokenPrivate(storeDir, p); err != nil {
		return "", err
	}
	data, err := os.ReadFile(p)
	if err == nil {
		tok := strings.TrimSpace(string(data))
		if len(tok) < 32 {
			return "", fmt.Errorf("daemon: %s holds no token (remove it to make one)", p)
		}
		return tok, nil
	}
	if !errors.Is(err, fs.ErrNotExist) || !create {
		return "", fmt.Errorf("daemon: token: %w", err)
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("daemon: token: %w", err)
	}
	tok := hex.EncodeToString(b[:])
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return LoadToken(storeDir, false) // another made it meanwhile
	}
	if err != nil {
		return "", fmt.Errorf("daemon: token: %w", err)
	}
	_, werr := f.WriteString(tok + "\n")
	serr, cerr := f.Sync(), f.Close()
	if err := cmp.Or(werr, serr, cerr); err != nil {
		os.Remove(p)
		return "", fmt.Errorf("daemon: token: %w", err)
	}
	return tok, nil
}

// CheckLoopback refuses an address to listen on that is not a loopback
// IP address with a port ("localhost" is 127.0.0.1).
func CheckLoopback(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("daemon: listen address %q: %w", addr, err)
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return "", fmt.Errorf("daemon: listen address %q: only a loopback address (127.0.0.1, ::1) is served", addr)
	}
	if port == "" {
		return "", fmt.Errorf("daemon: listen address %q: no port", addr)
	}
	return net.JoinHostPort(ip.String(), port), nil
}
