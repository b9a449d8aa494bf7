//go:build !unix

package storedir

// dirWritable cannot be asked cheaply here; a failed write reports it.
func dirWritable(string) bool { return true }
