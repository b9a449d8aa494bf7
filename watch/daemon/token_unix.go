//go:build unix

package daemon

import (
	"fmt"
	"os"
	"syscall"
)

// checkTokenPrivate refuses, as ssh refuses a private key others can
// read, a store directory other users can reach (they could read or
// replace the token) and a token file that is not a regular file of
// this user (or root) with no access for others. Each error says how
// to fix it.
func checkTokenPrivate(storeDir, p string) error {
	if fi, err := os.Stat(storeDir); err == nil {
		if m := fi.Mode().Perm(); m&0o077 != 0 {
			return fmt.Errorf("daemon: the store %s holding the API token has mode %#o: other users can reach it; run: chmod 700 %s", storeDir, m, storeDir)
		}
		if err := ownedHere(fi, "the store "+storeDir); err != nil {
			return err
		}
	}
	fi, err := os.Lstat(p)
	if err != nil {
		return nil // none yet (LoadToken makes it, 0600)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("daemon: the API token %s is not a regular file; remove it (a new token is made)", p)
	}
	if m := fi.Mode().Perm(); m&0o077 != 0 {
		return fmt.Errorf("daemon: the API token %s has mode %#o: other users can read it and use the API as you; run: chmod 600 %s", p, m, p)
	}
	return ownedHere(fi, "the API token "+p)
}

// ownedHere refuses a file owned by another user than this process's
// (root's files excepted; root may use any).
func ownedHere(fi os.FileInfo, what string) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := os.Geteuid(); uid != 0 && int(st.Uid) != uid && st.Uid != 0 {
		return fmt.Errorf("daemon: %s belongs to user %d, not to you (%d): another user could read or replace the token; use a store of your own", what, st.Uid, uid)
	}
	return nil
}
