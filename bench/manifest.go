//go:build linux

package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// Entry kinds.
const (
	kindFile    = 1
	kindDir     = 2
	kindSymlink = 3
)

// Entry is one path of a tree's reference state. It holds no pointers
// (paths and link targets live in Manifest.Names), so a manifest of a
// million paths costs the garbage collector nothing to scan while the
// in-process engine runs.
type Entry struct {
	NameOff, NameLen uint32
	LinkOff, LinkLen uint32
	Kind             uint8
	Perm             uint32
	Size             int64
	Sum              [16]byte // truncated SHA-256 of the content
	Ino              uint64
	Ctime, Mtime     int64
}

// Manifest is the byte-for-byte reference state of a tree: every path
// (relative, slash-separated; the root is ""), its kind, permission bits,
// size, content hash or link target, and the stat data seen when the hash
// was taken (a file whose inode, ctime and mtime are unchanged cannot have
// other content, so verification re-reads only files something touched).
type Manifest struct {
	Names []byte
	Ents  []Entry

	mu    sync.Mutex
	seed  maphash.Seed
	idx   map[uint64]int32
	extra map[string]int32 // hash collisions (improbable)
}

func newManifest() *Manifest { return &Manifest{} }

func (m *Manifest) name(e *Entry) string {
	return string(m.Names[e.NameOff : e.NameOff+e.NameLen])
}

func (m *Manifest) link(e *Entry) string {
	return string(m.Names[e.LinkOff : e.LinkOff+e.LinkLen])
}

// add appends an entry; safe for concurrent use. Call index after the
// last add.
func (m *Manifest) add(p string, e Entry, link string) {
	m.mu.Lock()
	e.NameOff, e.NameLen = uint32(len(m.Names)), uint32(len(p))
	m.Names = append(m.Names, p...)
	if link != "" {
		e.LinkOff, e.LinkLen = uint32(len(m.Names)), uint32(len(link))
		m.Names = append(m.Names, link...)
	}
	m.Ents = append(m.Ents, e)
	m.mu.Unlock()
}

// index sorts the entries by path and builds the lookup table.
func (m *Manifest) index() {
	sort.Slice(m.Ents, func(i, j int) bool { return m.name(&m.Ents[i]) < m.name(&m.Ents[j]) })
	m.seed = maphash.MakeSeed()
	m.idx = make(map[uint64]int32, len(m.Ents))
	m.extra = map[string]int32{}
	for i := range m.Ents {
		n := m.name(&m.Ents[i])
		h := maphash.String(m.seed, n)
		if _, dup := m.idx[h]; dup {
			m.extra[n] = int32(i)
			continue
		}
		m.idx[h] = int32(i)
	}
}

// lookup returns the index of path p, or -1.
func (m *Manifest) lookup(p string) int {
	if i, ok := m.idx[maphash.String(m.seed, p)]; ok && m.name(&m.Ents[i]) == p {
		return int(i)
	}
	if i, ok := m.extra[p]; ok {
		return int(i)
	}
	return -1
}

// Stats summarises a manifest.
func (m *Manifest) Stats() (files, dirs, links int, bytes int64) {
	for i := range m.Ents {
		switch m.Ents[i].Kind {
		case kindFile:
			files++
			bytes += m.Ents[i].Size
		case kindDir:
			dirs++
		case kindSymlink:
			links++
		}
	}
	return
}

func (m *Manifest) save(name string) error {
	tmp := name + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := gob.NewEncoder(w).Encode(struct {
		Names []byte
		Ents  []Entry
	}{m.Names, m.Ents}); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}

func loadManifest(name string) (*Manifest, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var d struct {
		Names []byte
		Ents  []Entry
	}
	if err := gob.NewDecoder(bufio.NewReaderSize(f, 1<<20)).Decode(&d); err != nil {
		return nil, fmt.Errorf("manifest %s: %w", name, err)
	}
	m := &Manifest{Names: d.Names, Ents: d.Ents}
	m.index()
	return m, nil
}

// statEntry fills the kind, permission and stat fields of e from fi.
func statEntry(e *Entry, fi fs.FileInfo) {
	switch {
	case fi.Mode().IsRegular():
		e.Kind = kindFile
		e.Size = fi.Size()
	case fi.IsDir():
		e.Kind = kindDir
	case fi.Mode()&fs.ModeSymlink != 0:
		e.Kind = kindSymlink
	}
	e.Perm = uint32(fi.Mode().Perm())
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		e.Ino = st.Ino
		e.Ctime = st.Ctim.Sec*1e9 + st.Ctim.Nsec
		e.Mtime = st.Mtim.Sec*1e9 + st.Mtim.Nsec
	}
}

func sumOf(b []byte) (s [16]byte) {
	h := sha256.Sum256(b)
	copy(s[:], h[:16])
	return s
}

// hashFile returns the content hash and size of a file.
func hashFile(name string) ([16]byte, int64, error) {
	var s [16]byte
	f, err := os.Open(name)
	if err != nil {
		return s, 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return s, 0, err
	}
	copy(s[:], h.Sum(nil)[:16])
	return s, n, nil
}

// walkTree calls fn for every path under root (root itself as "") from
// several goroutines; fn must be safe for concurrent use. Directories are
// listed before their entries are handed to fn.
func walkTree(root string, workers int, fn func(rel string, fi fs.FileInfo) error) error {
	if workers < 1 {
		workers = max(4, 2*runtime.NumCPU())
	}
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	var firstErr atomic.Pointer[error]
	fail := func(err error) {
		firstErr.CompareAndSwap(nil, &err)
	}
	var walk func(rel string)
	walk = func(rel string) {
		if firstErr.Load() != nil {
			return
		}
		abs := filepath.Join(root, filepath.FromSlash(rel))
		ents, err := os.ReadDir(abs)
		if err != nil {
			fail(err)
			return
		}
		for _, de := range ents {
			p := de.Name()
			if rel != "" {
				p = rel + "/" + p
			}
			fi, err := de.Info()
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				fail(err)
				return
			}
			if err := fn(p, fi); err != nil {
				fail(err)
				return
			}
			if fi.IsDir() {
				select {
				case sem <- struct{}{}:
					wg.Add(1)
					go func() {
						defer wg.Done()
						walk(p)
						<-sem
					}()
				default:
					walk(p)
				}
			}
		}
	}
	fi, err := os.Lstat(root)
	if err != nil {
		return err
	}
	if err := fn("", fi); err != nil {
		return err
	}
	walk("")
	wg.Wait()
	if e := firstErr.Load(); e != nil {
		return *e
	}
	return nil
}

// scanManifest reads a whole tree into a manifest (every file hashed).
func scanManifest(root string) (*Manifest, error) {
	m := newManifest()
	err := walkTree(root, 0, func(rel string, fi fs.FileInfo) error {
		var e Entry
		statEntry(&e, fi)
		link := ""
		abs := filepath.Join(root, filepath.FromSlash(rel))
		switch e.Kind {
		case kindFile:
			s, n, err := hashFile(abs)
			if err != nil {
				return err
			}
			e.Sum, e.Size = s, n
			// stat again: the hash belongs to this stat data only if the
			// file did not change while it was read.
			fi2, err := os.Lstat(abs)
			if err != nil {
				return err
			}
			var e2 Entry
			statEntry(&e2, fi2)
			if e2.Ctime != e.Ctime || e2.Size != n {
				return fmt.Errorf("%s changed while it was read", abs)
			}
		case kindSymlink:
			t, err := os.Readlink(abs)
			if err != nil {
				return err
			}
			link = t
			if link == "" {
				link = "\x00"
			}
		case 0:
			return nil // sockets and devices are not part of the reference
		}
		m.add(rel, e, link)
		return nil
	})
	if err != nil {
		return nil, err
	}
	m.index()
	return m, nil
}

// VerifyResult lists how a tree differs from its manifest.
type VerifyResult struct {
	Mismatches []string // "kind: path (detail)", at most maxListed
	Count      int
	Rehashed   int64 // files read because their stat data changed
	Changed    bool  // stat data updated for files with identical content
}

const maxListed = 40

// verify compares the tree at root with m byte for byte: the same set of
// paths, kinds, permission bits, sizes, contents and link targets (mtimes
// are not compared: restores set them to the current time). With full
// false, files whose inode, ctime and mtime equal the manifest's are
// trusted; the others are hashed. Files found identical get their new stat
// data recorded in m.
func verify(root string, m *Manifest, full bool) (*VerifyResult, error) {
	res := &VerifyResult{}
	seen := make([]uint8, len(m.Ents))
	var mu sync.Mutex
	var rehashed atomic.Int64
	report := func(s string) {
		mu.Lock()
		res.Count++
		if len(res.Mismatches) < maxListed {
			res.Mismatches = append(res.Mismatches, s)
		}
		mu.Unlock()
	}
	err := walkTree(root, 0, func(rel string, fi fs.FileInfo) error {
		var cur Entry
		statEntry(&cur, fi)
		if cur.Kind == 0 {
			report("unexpected special file: " + rel)
			return nil
		}
		i := m.lookup(rel)
		if i < 0 {
			report("extra: " + rel)
			if fi.IsDir() {
				return nil // its contents are reported as extra too
			}
			return nil
		}
		seen[i] = 1
		want := &m.Ents[i]
		if cur.Kind != want.Kind {
			report(fmt.Sprintf("kind: %s (want %d, have %d)", rel, want.Kind, cur.Kind))
			return nil
		}
		if cur.Perm != want.Perm && cur.Kind != kindSymlink {
			report(fmt.Sprintf("mode: %s (want %o, have %o)", rel, want.Perm, cur.Perm))
		}
		abs := filepath.Join(root, filepath.FromSlash(rel))
		switch cur.Kind {
		case kindFile:
			if cur.Size != want.Size {
				report(fmt.Sprintf("size: %s (want %d, have %d)", rel, want.Size, cur.Size))
				return nil
			}
			if !full && cur.Ino == want.Ino && cur.Ctime == want.Ctime && cur.Mtime == want.Mtime {
				return nil
			}
			rehashed.Add(1)
			s, _, err := hashFile(abs)
			if err != nil {
				report(fmt.Sprintf("unreadable: %s (%v)", rel, err))
				return nil
			}
			if s != want.Sum {
				report("content: " + rel)
				return nil
			}
			want.Ino, want.Ctime, want.Mtime = cur.Ino, cur.Ctime, cur.Mtime
			mu.Lock()
			res.Changed = true
			mu.Unlock()
		case kindSymlink:
			t, err := os.Readlink(abs)
			if err != nil || (t != m.link(want) && !(t == "" && m.link(want) == "\x00")) {
				report(fmt.Sprintf("link: %s (want %q, have %q)", rel, m.link(want), t))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range m.Ents {
		if seen[i] == 0 {
			report("missing: " + m.name(&m.Ents[i]))
		}
	}
	res.Rehashed = rehashed.Load()
	return res, nil
}

// Source gives the reference content of a path, to repair a tree.
type Source interface {
	// Content returns the reference bytes of the file at rel.
	Content(rel string) (io.ReadCloser, error)
}

// repair makes root match m again, path by path, using src for content.
// It is the harness's safety net (a failed engine must not poison the
// cached tree or the next repetition), never part of a measurement.
func repair(root string, m *Manifest, src Source) error {
	v, err := verify(root, m, false)
	if err != nil {
		return err
	}
	if v.Count == 0 {
		return nil
	}
	if src == nil {
		return fmt.Errorf("tree %s differs from its reference in %d paths and there is no source to repair it from (e.g. %s)", root, v.Count, strings.Join(v.Mismatches[:min(3, len(v.Mismatches))], "; "))
	}
	// Collect every differing path (not just the listed ones).
	var bad []string
	var mu sync.Mutex
	seen := make([]uint8, len(m.Ents))
	err = walkTree(root, 0, func(rel string, fi fs.FileInfo) error {
		var cur Entry
		statEntry(&cur, fi)
		i := m.lookup(rel)
		if i < 0 {
			mu.Lock()
			bad = append(bad, rel)
			mu.Unlock()
			return nil
		}
		seen[i] = 1
		want := &m.Ents[i]
		ok := cur.Kind == want.Kind && (cur.Perm == want.Perm || cur.Kind == kindSymlink)
		if ok && cur.Kind == kindFile {
			ok = cur.Size == want.Size
			if ok && !(cur.Ino == want.Ino && cur.Ctime == want.Ctime && cur.Mtime == want.Mtime) {
				s, _, err := hashFile(filepath.Join(root, filepath.FromSlash(rel)))
				ok = err == nil && s == want.Sum
			}
		}
		if ok && cur.Kind == kindSymlink {
			t, _ := os.Readlink(filepath.Join(root, filepath.FromSlash(rel)))
			ok = t == m.link(want)
		}
		if !ok {
			mu.Lock()
			bad = append(bad, rel)
			mu.Unlock()
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := range m.Ents {
		if seen[i] == 0 {
			bad = append(bad, m.name(&m.Ents[i]))
		}
	}
	sort.Strings(bad) // parents before children
	for _, rel := range bad {
		abs := filepath.Join(root, filepath.FromSlash(rel))
		i := m.lookup(rel)
		if i < 0 {
			if err := os.RemoveAll(abs); err != nil {
				return err
			}
			continue
		}
		want := &m.Ents[i]
		if fi, err := os.Lstat(abs); err == nil {
			var cur Entry
			statEntry(&cur, fi)
			if cur.Kind == kindDir && want.Kind == kindDir {
				if err := os.Chmod(abs, fs.FileMode(want.Perm)); err != nil {
					return err
				}
				continue
			}
			if err := os.RemoveAll(abs); err != nil {
				return err
			}
		}
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return err
		}
		switch want.Kind {
		case kindDir:
			if err := os.Mkdir(abs, fs.FileMode(want.Perm)); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
		case kindSymlink:
			if err := os.Symlink(m.link(want), abs); err != nil {
				return err
			}
		case kindFile:
			rc, err := src.Content(rel)
			if err != nil {
				return fmt.Errorf("repair %s: %w", rel, err)
			}
			f, err := os.OpenFile(abs, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, fs.FileMode(want.Perm))
			if err != nil {
				rc.Close()
				return err
			}
			_, err = io.Copy(f, rc)
			rc.Close()
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			if err := os.Chmod(abs, fs.FileMode(want.Perm)); err != nil {
				return err
			}
		}
	}
	v, err = verify(root, m, false)
	if err != nil {
		return err
	}
	if v.Count > 0 {
		return fmt.Errorf("tree %s still differs from its reference after repair: %s", root, strings.Join(v.Mismatches[:min(5, len(v.Mismatches))], "; "))
	}
	return nil
}

// duBytes is the disk use of a directory tree: allocated blocks, as du
// reports them, each inode counted once.
func duBytes(root string) (int64, error) {
	var total atomic.Int64
	var mu sync.Mutex
	inodes := map[uint64]bool{}
	err := walkTree(root, 0, func(rel string, fi fs.FileInfo) error {
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return nil
		}
		if st.Nlink > 1 {
			mu.Lock()
			dup := inodes[st.Ino]
			inodes[st.Ino] = true
			mu.Unlock()
			if dup {
				return nil
			}
		}
		total.Add(st.Blocks * 512)
		return nil
	})
	return total.Load(), err
}
