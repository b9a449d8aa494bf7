//go:build !unix

package daemon

// CheckSocketDir: unix sockets are used on unix only in practice; other
// systems rely on the store directory's own protection.
func CheckSocketDir(dir string) error { return nil }

// PrivateUmask: no umask outside unix.
func PrivateUmask() func() { return func() {} }
