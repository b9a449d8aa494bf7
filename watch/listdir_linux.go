//go:build linux

package watch

import (
	"os"
	"path/filepath"
	"slices"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/turnback/turnback/walker/dirent"
	"github.com/turnback/turnback/walker/ignore"
)

// direntBufs are getdents buffers, one per listing at a time.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// readDir lists directory abs as the watcher needs it: the names of its
// subdirectories (sorted) and, for the Ignorer, whether a name is a
// regular file there. Only the names of subdirectories and of ignore
// files are kept (os.ReadDir makes, and sorts, an entry per file: on a
// large tree most of a build's allocations); regular answers other
// names with an lstat. An entry whose type the filesystem does not give
// is lstat'ed.
func readDir(abs string) (dirs []string, regular func(string) bool, err error) {
	fd, err := unix.Open(abs, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, &os.PathError{Op: "open", Path: abs, Err: err}
	}
	defer unix.Close(fd)
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	var ignoreFiles uint8 // bit i: ignore.FileNames[i] is a regular file
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, nil, &os.PathError{Op: "readdirent", Path: abs, Err: err}
		}
		if n <= 0 {
			break
		}
		dirent.Each(buf[:n], func(typ uint8, name []byte) {
			if typ == unix.DT_UNKNOWN {
				var st unix.Stat_t
				if unix.Fstatat(fd, string(name), &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
					return // gone meanwhile
				}
				switch st.Mode & unix.S_IFMT {
				case unix.S_IFDIR:
					typ = unix.DT_DIR
				case unix.S_IFREG:
					typ = unix.DT_REG
				}
			}
			switch typ {
			case unix.DT_DIR:
				dirs = append(dirs, string(name))
			case unix.DT_REG:
				if i := slices.Index(ignore.FileNames, string(name)); i >= 0 && i < 8 {
					ignoreFiles |= 1 << i
				}
			}
		})
	}
	slices.Sort(dirs)
	regular = func(name string) bool {
		if i := slices.Index(ignore.FileNames, name); i >= 0 && i < 8 {
			return ignoreFiles&(1<<i) != 0
		}
		fi, err := os.Lstat(filepath.Join(abs, name))
		return err == nil && fi.Mode().IsRegular()
	}
	return dirs, regular, nil
}
