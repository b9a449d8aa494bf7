//go:build !unix

package daemon

// CheckSocketDir: unix sockets are used on unix only in practice; other
// systems rely on the store directory's own protection.
func CheckSocketDir(dir string) error { return nil }

// privateUmask: no umask outside unix.
func privateUmask() func() { return func() {} }
