//go:build !linux

package autowatch

// watchableFS: automatic daemons start on Linux only.
func watchableFS(string) (bool, string) { return false, "not linux" }

// watchHeadroom: automatic daemons start on Linux only.
func watchHeadroom(int64) bool { return false }
