//go:build !linux

package daemon

import "os"

// watchableFS: automatic daemons start on Linux only.
func watchableFS(string) (bool, string) { return false, "not linux" }

// watchHeadroom: automatic daemons start on Linux only.
func watchHeadroom(int64) bool { return false }

// pipeInode: automatic daemons start on Linux only.
func pipeInode(*os.File) (uint64, bool) { return 0, false }
