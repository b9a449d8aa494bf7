//go:build unix

package daemon

import "golang.org/x/sys/unix"

// tellBuilt writes one byte into the pipe fd (with inode ino) that the
// command which started this daemon gave it, and closes it: the command
// now knows that every directory is watched (internal/handoff). A
// descriptor that is not that pipe (the environment variable was set by
// hand) is left alone.
func tellBuilt(fd int, ino uint64) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO || st.Ino != ino {
		return
	}
	_, _ = unix.Write(fd, []byte{1}) // the command may be gone: EPIPE
	_ = unix.Close(fd)
}
