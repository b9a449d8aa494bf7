package daemon

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// SocketPath is where the daemon of storeDir listens: watch.sock in the
// store, or, when that path is too long for a unix socket address (about
// 100 bytes) or the store directory is open to other users, a name
// derived from the store in a per-user directory (0700) under the
// temporary directory.
func SocketPath(storeDir string) string {
	p := filepath.Join(storeDir, "watch.sock")
	if len(p) < 100 && CheckSocketDir(storeDir) == nil {
		return p
	}
	key := storeDir
	if real, err := filepath.EvalSymlinks(storeDir); err == nil {
		key = real
	}
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(SocketDir(), hex.EncodeToString(sum[:10])+".sock")
}

// SocketDir is the per-user directory of the sockets that cannot be in
// their store.
func SocketDir() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("turnback-%d", os.Getuid()))
}

// RemoveStaleSocket removes the socket of a daemon that is gone. Only a
// process holding the store may call it: a live daemon holds the store.
func RemoveStaleSocket(storeDir string) {
	p := SocketPath(storeDir)
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSocket != 0 {
		_ = os.Remove(p)
	}
}
