// Reading one directory of the work tree: its listing, lstat'ed through
// the open directory, and its ignore files.

package walker

import (
	"io/fs"
	"os"
	"sort"

	"github.com/turnback/turnback/walker/ignore"
)

// dirEnt is one name of a directory listing with its lstat result.
type dirEnt struct {
	name string
	fi   fs.FileInfo // nil when err is set
	err  error
}

// listDir lists the directory open at d, sorted by name, and lstats every
// entry through it (never by path, never following a symlink; see
// readDir). Entries that vanish between the listing and the lstat are
// left out.
func listDir(d *os.Root) ([]dirEnt, error) {
	f, err := openNoAtime(d, ".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readDir(d, f)
}

// loadIgnores pushes the ignore files present in the directory, as
// its listing ents shows them.
func loadIgnores(d *os.Root, rel string, m *ignore.Matcher, ents []dirEnt) *ignore.Matcher {
	return pushIgnores(d, rel, m, func(fname string) bool {
		i := sort.Search(len(ents), func(i int) bool { return ents[i].name >= fname })
		return i < len(ents) && ents[i].name == fname && ents[i].fi != nil && ents[i].fi.Mode().IsRegular()
	})
}

// pushIgnores pushes onto m the ignore files of the directory open at d
// (rel: its slash path) that regular says are regular files. One that
// cannot be read is passed over.
func pushIgnores(d *os.Root, rel string, m *ignore.Matcher, regular func(name string) bool) *ignore.Matcher {
	var rules []*ignore.Rules
	for _, fname := range ignore.FileNames {
		if !regular(fname) {
			continue
		}
		data, err := readNoAtime(d, fname)
		if err != nil {
			continue
		}
		rules = append(rules, ignore.Parse(rel, data))
	}
	return m.Push(rules...)
}
