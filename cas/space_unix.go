//go:build unix

package cas

import "golang.org/x/sys/unix"

// freeSpace returns the bytes an unprivileged process may still write on
// the file system of dir.
func freeSpace(dir string) (int64, bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), true //nolint:unconvert // field types differ by platform
}
