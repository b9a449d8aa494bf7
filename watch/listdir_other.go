//go:build !linux

package watch

import (
	"os"
	"sort"
)

// readDir lists directory abs as the watcher needs it: the names of its
// subdirectories (sorted) and, for the Ignorer, whether a name is a
// regular file there.
func readDir(abs string) (dirs []string, regular func(string) bool, err error) {
	ents, err := os.ReadDir(abs)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range ents {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	regular = func(name string) bool {
		i := sort.Search(len(ents), func(i int) bool { return ents[i].Name() >= name })
		return i < len(ents) && ents[i].Name() == name && ents[i].Type().IsRegular()
	}
	return dirs, regular, nil
}
