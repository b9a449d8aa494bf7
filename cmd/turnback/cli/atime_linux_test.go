package cli

import (
	"io/fs"
	"syscall"
)

// listNoAtime opens files for the listing without updating their access
// time, so that the listing itself does not disturb what it records.
const listNoAtime = syscall.O_NOATIME

// fileAtime returns the access time of a file in ns.
func fileAtime(fi fs.FileInfo) (int64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Atim.Nano(), true
}
