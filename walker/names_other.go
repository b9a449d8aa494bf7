//go:build !(linux && (amd64 || arm64))

package walker

// readByName: directories are always listed here. Whether a name found
// by lstat is the one stored (a case-insensitive or normalising
// filesystem, short names) is not checked on these systems.
const readByName = false

func (d *dirh) exactNames([]dirEnt) bool { return false }

// listNames: directories are read whole here.
func (d *dirh) listNames([]string) ([]string, bool) { return nil, false }
