//go:build !unix

package turnback

// readUmask: no umask outside unix, and no permission bits to mask.
func readUmask() uint32 { return 0 }
