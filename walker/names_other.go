//go:build !(linux && (amd64 || arm64))

package walker

import "github.com/turnback/turnback/manifest"

// readByName: directories are always listed here. Whether a name found
// by lstat is the one stored (a case-insensitive or normalising
// filesystem, short names) is not checked on these systems.
const readByName = false

func (d *dirh) exactNames([]dirEnt) bool { return false }

// listNames: directories are read whole here.
func (d *dirh) listNames([]string) ([]string, []uint8, bool) { return nil, nil, false }

func kindIs(uint8, manifest.Kind) bool { return false }

func (d *dirh) searchable() bool { return true }

// dtDir is the listed type of a directory (DT_DIR).
const dtDir = 4
