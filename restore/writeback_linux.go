package restore

import (
	"os"

	"golang.org/x/sys/unix"
)

// dirSyncStrict: a directory that cannot be synced fails the restore
// before its commit point (see dirSyncUnsupported).
const dirSyncStrict = true

// startWriteback starts writing f's dirty pages to disk without waiting
// (sync_file_range SYNC_FILE_RANGE_WRITE), so that the fsyncs of a batch
// find its data in flight. A hint: the fsync that follows reports errors
// and makes it durable.
func startWriteback(f *os.File) {
	_ = unix.SyncFileRange(int(f.Fd()), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
}
