package daemon

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Filesystems whose changes inotify does not (always) report: changes
// made by another machine, another kernel, or a FUSE server are not
// seen (magic numbers from statfs(2)).
var unwatchedFS = map[int64]string{
	0x6969:     "nfs",
	0x517b:     "smb",
	0xff534d42: "cifs",
	0xfe534d42: "smb2",
	0x65735546: "fuse",
	0x01021997: "9p",
	0x00c36400: "ceph",
	0x5346414f: "afs",
	0x73757245: "coda",
	0x01161970: "gfs2",
	0x7461636f: "ocfs2",
	0x0bd00bd0: "lustre",
	0x47504653: "gpfs",
	0x013111a8: "ibrix",
	0xaad7aaea: "panfs",
	0x564c:     "ncp",
	0xbacbacbc: "vmhgfs",
	0x786f4256: "vboxsf",
}

// watchableFS reports whether inotify can be trusted to report every
// change to the folder at dir, and if not, the filesystem's name.
func watchableFS(dir string) (bool, string) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return false, err.Error()
	}
	if name, ok := unwatchedFS[int64(st.Type)]; ok {
		return false, name
	}
	return true, ""
}

// watchHeadroom reports whether watching dirs directories leaves the
// user's other programs watchReserve inotify watches of the limit.
func watchHeadroom(dirs int64) bool {
	data, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches")
	if err != nil {
		return true // no limit known: the daemon finds out itself
	}
	limit, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		return true
	}
	return dirs+watchReserve <= limit
}

// pipeInode returns the inode of pipe f, which tells it from any other
// descriptor in the process that inherits it.
func pipeInode(f *os.File) (uint64, bool) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return 0, false
	}
	return st.Ino, true
}
