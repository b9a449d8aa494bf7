// Reading one directory of the work tree: its listing, lstat'ed through
// the open directory, and its ignore files.

package walker

import (
	"io/fs"
	"os"
	"slices"
	"sort"

	"github.com/turnback/turnback/walker/ignore"
)

// dirEnt is one name of a directory listing with its lstat result.
type dirEnt struct {
	name string
	fi   fs.FileInfo // nil when err is set
	err  error
}

// listDir lists the directory root names, as dirh.list does (tests).
func listDir(root *os.Root) ([]dirEnt, error) {
	d, err := openRootDir(root)
	if err != nil {
		return nil, err
	}
	defer d.close()
	return d.list(nil, nil)
}

// vouchedByRecord reports whether rec vouches for every entry of ents:
// a subdirectory (its own record vouches for it), or a regular file
// whose stat, inode included, is the one recorded.
func vouchedByRecord(ents []dirEnt, rec *dirRecord) bool {
	cur := 0
	for _, de := range ents {
		if de.err != nil {
			return false
		}
		switch mode := de.fi.Mode(); {
		case mode.IsDir():
		case mode.IsRegular():
			if ce := rec.lookupFrom(de.name, &cur); ce == nil || ce.st != statFunc(de.fi) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// readsFiles reports whether capturing a directory listed as ents reads
// files of it besides those changed: its ignore files, a symlink's
// target, or a file that shows it was generated (rel and probe as
// evidence takes them).
func readsFiles(rel string, probe ignore.Probe, ents []dirEnt) bool {
	probed := rel != "" && probe != ignore.ProbeNone
	for _, de := range ents {
		if de.fi == nil {
			continue
		}
		if de.fi.Mode()&fs.ModeSymlink != 0 || slices.Contains(ignore.FileNames, de.name) ||
			probed && de.name == ignore.CacheDirTag {
			return true
		}
	}
	return false
}

// loadIgnores pushes the ignore files present in the directory, as
// its listing ents shows them.
func loadIgnores(d *dirh, rel string, m *ignore.Matcher, ents []dirEnt) *ignore.Matcher {
	m, _ = loadIgnoresRead(d, rel, m, ents)
	return m
}

// loadIgnoresRead is loadIgnores that also returns what it read of each
// ignore file, by its index in ignore.FileNames (nil: not read).
func loadIgnoresRead(d *dirh, rel string, m *ignore.Matcher, ents []dirEnt) (*ignore.Matcher, [][]byte) {
	return readIgnores(d.openFile, rel, m, func(fname string) bool {
		i := sort.Search(len(ents), func(i int) bool { return ents[i].name >= fname })
		return i < len(ents) && ents[i].name == fname && ents[i].fi != nil && ents[i].fi.Mode().IsRegular()
	})
}

// pushIgnores pushes onto m the ignore files of one directory (rel: its
// slash path; open opens a file of it) that regular says are regular
// files. One that cannot be read is passed over.
func pushIgnores(open func(string) (*os.File, error), rel string, m *ignore.Matcher, regular func(name string) bool) *ignore.Matcher {
	m, _ = readIgnores(open, rel, m, regular)
	return m
}

// readIgnores is pushIgnores that also returns what it read of each
// ignore file, by its index in ignore.FileNames (nil: not read; nil
// slice: none read).
func readIgnores(open func(string) (*os.File, error), rel string, m *ignore.Matcher, regular func(name string) bool) (*ignore.Matcher, [][]byte) {
	var rules []*ignore.Rules
	var read [][]byte
	for i, fname := range ignore.FileNames {
		if !regular(fname) {
			continue
		}
		data, err := readSmall(open, fname)
		if err != nil {
			continue
		}
		if data == nil {
			data = []byte{}
		}
		if read == nil {
			read = make([][]byte, len(ignore.FileNames))
		}
		read[i] = data
		r := ignore.Parse(rel, data)
		r.File = fname
		rules = append(rules, r)
	}
	return m.Push(rules...), read
}

// rulesContent returns what read (readIgnores) holds of the ignore file
// name, a regular file by mode: nil if it is no ignore file or was not
// read. It is all the capture applied of it (at most readSmall's 4 MiB).
func rulesContent(read [][]byte, name string, mode fs.FileMode) []byte {
	i := slices.Index(ignore.FileNames, name)
	if i < 0 || read == nil || !mode.IsRegular() {
		return nil
	}
	return read[i]
}
