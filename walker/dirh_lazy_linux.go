//go:build linux && (amd64 || arm64)

package walker

import (
	"errors"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// lazy is what a subdirectory handle not yet opened knows (see
// dirh.lazyDir). Its names are lstat'ed by path through up, an open
// ancestor; it is opened through its parent, one component, only when
// something needs its descriptor: a listing, a file to read, a symlink
// to read. A directory whose record vouches for its names and whose
// files did not change is never opened.
type lazy struct {
	parent *dirh
	name   string
	up     *dirh  // an open ancestor, open until this directory is done
	rel    string // the directory's path below up
	st     statInfo

	mu  sync.Mutex // guards the handle's fd and err
	err error      // why it could not be opened (a *lazyOpenError)
}

// dirSlot is room for a lazy handle (see subRoom).
type dirSlot struct {
	d dirh
	l lazy
}

// lazyDir returns a handle of subdirectory name, whose lstat in d's
// listing is fi, that opens it only when needed. Where its stat cannot
// vouch for a listing (see dirh.stat) it would be opened at once
// anyway, and so it is: so is a mount point, which is judged by itself.
// The handle is made in slot, which must outlive it.
func (d *dirh) lazyDir(name string, fi fs.FileInfo, slot *dirSlot) (*dirh, error) {
	si, ok := asStatInfo(fi)
	if !ok || !d.vouch || si.dev != d.dev || si.mode&unix.S_IFMT != unix.S_IFDIR || !mayList(si) {
		return d.openDir(name)
	}
	sub, l := &slot.d, &slot.l
	*sub = dirh{fd: -1, dev: d.dev, raw: d.raw, vouch: d.vouch}
	*l = lazy{parent: d, name: name, st: *si, up: d, rel: name}
	if pl := d.lazy; pl != nil {
		pl.mu.Lock()
		if d.fd < 0 {
			l.up, l.rel = pl.up, pl.rel+"/"+name
		}
		pl.mu.Unlock()
	}
	sub.lazy = l
	return sub, nil
}

// descriptor returns d's descriptor, opening a lazy handle if it is
// not open yet.
func (d *dirh) descriptor() (int, error) {
	l := d.lazy
	if l == nil {
		return d.fd, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if d.fd < 0 && l.err == nil {
		d.fd, l.err = d.openLazy()
	}
	return d.fd, l.err
}

// lazyMaxSteps bounds the path components a lazy handle's names cost:
// each is a lookup more per lstat, which past about a dozen costs more
// than opening the directory (and its subdirectories' names then cost
// one more each, not their depth below an ancestor). It also keeps a
// path below an open ancestor under PATH_MAX: 12 names of 255 bytes.
const lazyMaxSteps = 12

// openIfMany opens a lazy handle not open yet whose n names would cost
// more than lazyMaxSteps lookups by path.
func (d *dirh) openIfMany(n int) error {
	if _, prefix := d.statBase(); prefix == "" || n*(strings.Count(prefix, "/")+1) <= lazyMaxSteps {
		return nil
	}
	return d.ensureOpen()
}

// ensureOpen opens a lazy handle if it is not open yet.
func (d *dirh) ensureOpen() error {
	_, err := d.descriptor()
	return err
}

// openLazy opens lazy handle d through its parent, and checks that it
// is still the directory lstat'ed: one replaced since was not the one
// whose names were read. A parent that cannot be opened gives its own
// error (a *lazyOpenError naming the parent).
func (d *dirh) openLazy() (int, error) {
	l := d.lazy
	pfd, err := l.parent.descriptor()
	if err != nil {
		return -1, err
	}
	if testHookLazyOpen != nil {
		testHookLazyOpen(l.name)
	}
	fail := func(op string, err error) (int, error) {
		return -1, &lazyOpenError{d: d, err: &fs.PathError{Op: op, Path: l.name, Err: err}}
	}
	fd, err := openat(pfd, l.name, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return fail("openat", err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return fail("fstat", err)
	}
	if st.Dev != l.st.dev || st.Ino != l.st.ino {
		unix.Close(fd)
		return fail("openat", errReplaced)
	}
	return fd, nil
}

// byPath reports whether d's names are lstat'ed by path (a lazy handle
// not open).
func (d *dirh) byPath() bool {
	_, prefix := d.statBase()
	return prefix != ""
}

// errReplaced: a directory was replaced by another while it was read.
var errReplaced = errors.New("replaced by another directory while read")

// statBase returns the descriptor and path prefix through which d's
// names are lstat'ed: its own descriptor once open, else its open
// ancestor's and its path below it ("" for none).
func (d *dirh) statBase() (fd int, prefix string) {
	l := d.lazy
	if l == nil {
		return d.fd, ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if d.fd >= 0 {
		return d.fd, ""
	}
	return l.up.fd, l.rel
}

// fstatatIn is fstatatBuf of name in the directory that dirfd and
// prefix name (see statBase).
func fstatatIn(dirfd int, prefix, name string, st *unix.Stat_t, cname *[]byte, raw bool) error {
	if prefix == "" {
		return fstatatBuf(dirfd, name, st, cname, raw)
	}
	b := append(append(append(append((*cname)[:0], prefix...), '/'), name...), 0)
	*cname = b
	return fstatatC(dirfd, b, st, raw)
}

// mayList reports whether this process may list directory si by its
// permission bits: read and search for whoever it is to the directory.
// A directory it may not list is opened at once (and fails as before):
// its names, found by path, would be a listing another user's capture
// recorded. (An ACL that denies what the bits allow is not seen.)
func mayList(si *statInfo) bool {
	ids := processIDs()
	if ids.uid == 0 {
		return true
	}
	shift := uint32(0) // other
	switch {
	case si.uid == ids.uid:
		shift = 6
	case slices.Contains(ids.gids, si.gid):
		shift = 3
	}
	return (si.mode>>shift)&0o5 == 0o5
}

// processIDs are the effective uid and every gid of this process.
var processIDs = sync.OnceValue(func() (ids struct {
	uid  uint32
	gids []uint32
}) {
	ids.uid = uint32(unix.Geteuid())
	ids.gids = append(ids.gids, uint32(unix.Getegid()))
	if gs, err := unix.Getgroups(); err == nil {
		for _, g := range gs {
			ids.gids = append(ids.gids, uint32(g))
		}
	}
	return ids
})
