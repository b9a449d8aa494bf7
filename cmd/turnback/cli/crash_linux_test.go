package cli

import "syscall"

// crashFreeBytes reports the space available to this user in the file
// system holding dir.
func crashFreeBytes(dir string) (uint64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return st.Bavail * uint64(st.Bsize), true
}
