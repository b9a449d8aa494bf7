//go:build !(linux && (amd64 || arm64))

package walker

import (
	"errors"
	"io/fs"
	"os"
	"sort"
)

// readDir lists the directory open at f (d's root), sorted by name, and
// lstats every entry through d (never following a symlink, never leaving
// the directory). Entries that vanish before their lstat are left out.
func readDir(d *os.Root, f *os.File) ([]dirEnt, error) {
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	ents := make([]dirEnt, 0, len(names))
	for _, n := range names {
		fi, err := d.Lstat(n)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		ents = append(ents, dirEnt{name: n, fi: fi, err: err})
	}
	return ents, nil
}
