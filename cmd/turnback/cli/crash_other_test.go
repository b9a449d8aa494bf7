//go:build !linux

package cli

// crashFreeBytes: only Linux has a tmpfs the crash tests know to prefer.
func crashFreeBytes(dir string) (uint64, bool) { return 0, false }
