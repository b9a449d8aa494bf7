//go:build !linux

package turnback_test

import "io/fs"

// diskStamp: only Linux is checked (the fields differ elsewhere).
func diskStamp(fs.FileInfo) (modelStamp, bool) { return modelStamp{}, false }
