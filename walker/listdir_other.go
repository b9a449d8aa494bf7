//go:build !(linux && (amd64 || arm64))

package walker

import (
	"errors"
	"io/fs"
	"os"
	"sort"
	"time"
)

// statInfo is Linux's allocation-free lstat result (listdir_linux.go);
// here the listing's FileInfos come from os.Root, and dirScratch's
// infos stay empty.
type statInfo struct{}

// asStatInfo: no FileInfo here is a statInfo.
func asStatInfo(fs.FileInfo) (*statInfo, bool) { return nil, false }

func (*statInfo) fileStat() fileStat               { return fileStat{} }
func (*statInfo) owner() (uid, gid uint32)         { return 0, 0 }
func (*statInfo) link() (id inodeID, nlink uint64) { return inodeID{}, 0 }

// dirh is one directory of the work tree, open as an os.Root: nothing
// below it is reached by following a symlink out of it.
type dirh struct {
	r        *os.Root
	borrowed bool // the caller's root: close leaves it open
}

// openRootDir returns root as a dirh (the caller still closes root).
func openRootDir(root *os.Root) (*dirh, error) { return &dirh{r: root, borrowed: true}, nil }

func (d *dirh) close() {
	if !d.borrowed {
		d.r.Close()
	}
}

func (d *dirh) openDir(name string) (*dirh, error) {
	r, err := d.r.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	return &dirh{r: r}, nil
}

// dirSlot: no lazy handles here.
type dirSlot struct{}

// lazyDir opens subdirectory name: a handle here is always open (see
// dirh_lazy_linux.go).
func (d *dirh) lazyDir(name string, _ fs.FileInfo, _ *dirSlot) (*dirh, error) { return d.openDir(name) }

// openIfMany: a handle here is always open.
func (d *dirh) openIfMany(int) error { return nil }

// byPath: a handle here is always open.
func (d *dirh) byPath() bool { return false }

// racyWindow returns the racy window of stat data read through d (see
// trusted): the default, as the clock behind these times is unknown.
func (d *dirh) racyWindow() time.Duration { return racyWindow }

// ensureOpen: a handle here is always open.
func (d *dirh) ensureOpen() error { return nil }

func (d *dirh) openFile(name string) (*os.File, error) { return openNoAtime(d.r, name) }

func (d *dirh) readlink(name string) (string, error) { return d.r.Readlink(name) }

// stat: a directory's listing is vouched for by its stat on Linux only
// (see listing.go).
func (d *dirh) stat(*statInfo) (dirStat, bool) { return dirStat{}, false }

// list lists the directory, sorted by name, and lstats every entry
// through its root (never following a symlink, never leaving the
// directory). Entries that vanish before their lstat are left out.
// names is always nil here (stat vouches for none).
func (d *dirh) list(_ *dirScratch, _ []string) ([]dirEnt, error) {
	f, err := openNoAtime(d.r, ".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	ents := make([]dirEnt, 0, len(names))
	for _, n := range names {
		fi, err := d.r.Lstat(n)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		ents = append(ents, dirEnt{name: n, fi: fi, err: err})
	}
	return ents, nil
}
