//go:build !linux

package restore

import "os"

// dirSyncStrict: directory syncs are best effort here (see
// dirSyncUnsupported).
const dirSyncStrict = false

// startWriteback: no portable way to start writeback without waiting;
// the batch's fsyncs do it all.
func startWriteback(*os.File) {}
