package turnback_test

import (
	"io/fs"
	"syscall"
)

// diskStamp returns what any write to an inode changes: its number,
// mtime and ctime (ctime cannot be set back).
func diskStamp(fi fs.FileInfo) (modelStamp, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return modelStamp{}, false
	}
	return modelStamp{
		ino:   st.Ino,
		mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec,
		ctime: st.Ctim.Sec*1e9 + st.Ctim.Nsec,
	}, true
}
