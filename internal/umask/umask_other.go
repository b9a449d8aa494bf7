//go:build !unix

package umask

// Read: no umask outside unix, and no permission bits to mask.
func Read() uint32 { return 0 }

// Pulled: no permission bits to mask outside unix.
func Pulled(u uint32) uint32 { return u }
