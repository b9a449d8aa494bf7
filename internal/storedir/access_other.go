//go:build !unix

package storedir

// dirWritable cannot be asked cheaply here; a failed write reports it.
func dirWritable(string) bool { return true }

// GiveToOwner does nothing here: there is no root to give files away.
func GiveToOwner(string, ...string) {}
