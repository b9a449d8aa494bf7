//go:build linux

package truth

import (
	"bufio"
	"crypto/sha256"
	"encoding/gob"
	"fmt"
	"hash"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"sort"
	"sync"
	"syscall"
)

// Entry kinds.
const (
	KindFile    = 1
	KindDir     = 2
	KindSymlink = 3
)

// Entry is one path of a tree's reference state.
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

// State is the byte-for-byte reference state of a tree (see the package
// documentation). Add is safe for concurrent use; call Index after the
// last Add and before Lookup.
type State struct {
	Names []byte
	Ents  []Entry

	mu    sync.Mutex
	seed  maphash.Seed
	idx   map[uint64]int32
	extra map[string]int32 // hash collisions (improbable)
}

// New returns an empty State.
func New() *State { return &State{} }

// Name is the path of e.
func (s *State) Name(e *Entry) string {
	return string(s.Names[e.NameOff : e.NameOff+e.NameLen])
}

// Link is the link target of e ("\x00" for an empty target).
func (s *State) Link(e *Entry) string {
	return string(s.Names[e.LinkOff : e.LinkOff+e.LinkLen])
}

// Add appends an entry; safe for concurrent use.
func (s *State) Add(p string, e Entry, link string) {
	s.mu.Lock()
	e.NameOff, e.NameLen = uint32(len(s.Names)), uint32(len(p))
	s.Names = append(s.Names, p...)
	if link != "" {
		e.LinkOff, e.LinkLen = uint32(len(s.Names)), uint32(len(link))
		s.Names = append(s.Names, link...)
	}
	s.Ents = append(s.Ents, e)
	s.mu.Unlock()
}

// AddStat adds path p as abs is on disk now (Lstat), with content hash
// sum (files) or link target (symlinks).
func (s *State) AddStat(p, abs string, sum [16]byte, link string) error {
	fi, err := os.Lstat(abs)
	if err != nil {
		return err
	}
	var e Entry
	StatEntry(&e, fi)
	e.Sum = sum
	s.Add(p, e, link)
	return nil
}

// Index sorts the entries by path and builds the lookup table.
func (s *State) Index() {
	sort.Slice(s.Ents, func(i, j int) bool { return s.Name(&s.Ents[i]) < s.Name(&s.Ents[j]) })
	s.seed = maphash.MakeSeed()
	s.idx = make(map[uint64]int32, len(s.Ents))
	s.extra = map[string]int32{}
	for i := range s.Ents {
		n := s.Name(&s.Ents[i])
		h := maphash.String(s.seed, n)
		if _, dup := s.idx[h]; dup {
			s.extra[n] = int32(i)
			continue
		}
		s.idx[h] = int32(i)
	}
}

// Lookup returns the index of path p in Ents, or -1.
func (s *State) Lookup(p string) int {
	if i, ok := s.idx[maphash.String(s.seed, p)]; ok && s.Name(&s.Ents[i]) == p {
		return int(i)
	}
	if i, ok := s.extra[p]; ok {
		return int(i)
	}
	return -1
}

// Stats summarises a State.
func (s *State) Stats() (files, dirs, links int, bytes int64) {
	for i := range s.Ents {
		switch s.Ents[i].Kind {
		case KindFile:
			files++
			bytes += s.Ents[i].Size
		case KindDir:
			dirs++
		case KindSymlink:
			links++
		}
	}
	return
}

// stored is what Save writes.
type stored struct {
	Names []byte
	Ents  []Entry
}

// Save writes the State to the file name (atomically: a temporary file
// renamed into place).
func (s *State) Save(name string) error {
	tmp := name + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := gob.NewEncoder(w).Encode(stored{s.Names, s.Ents}); err != nil {
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

// Load reads a State written by Save, indexed.
func Load(name string) (*State, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var d stored
	if err := gob.NewDecoder(bufio.NewReaderSize(f, 1<<20)).Decode(&d); err != nil {
		return nil, fmt.Errorf("truth: read %s: %w", name, err)
	}
	s := &State{Names: d.Names, Ents: d.Ents}
	s.Index()
	return s, nil
}

// StatEntry fills the kind, permission and stat fields of e from fi
// (kind 0: neither a regular file, a directory nor a symlink).
func StatEntry(e *Entry, fi fs.FileInfo) {
	switch {
	case fi.Mode().IsRegular():
		e.Kind = KindFile
		e.Size = fi.Size()
	case fi.IsDir():
		e.Kind = KindDir
	case fi.Mode()&fs.ModeSymlink != 0:
		e.Kind = KindSymlink
	}
	e.Perm = uint32(fi.Mode().Perm())
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		e.Ino = st.Ino
		e.Ctime = st.Ctim.Sec*1e9 + st.Ctim.Nsec
		e.Mtime = st.Mtim.Sec*1e9 + st.Mtim.Nsec
	}
}

// NewHash returns the content hash the State records (feed it, then
// take Digest).
func NewHash() hash.Hash { return sha256.New() }

// Digest is the recorded (truncated) form of h's sum.
func Digest(h hash.Hash) (s [16]byte) {
	copy(s[:], h.Sum(nil)[:16])
	return s
}

// HashFile returns the content hash and size of a file.
func HashFile(name string) ([16]byte, int64, error) {
	f, err := os.Open(name)
	if err != nil {
		return [16]byte{}, 0, err
	}
	defer f.Close()
	h := NewHash()
	n, err := io.Copy(h, f)
	if err != nil {
		return [16]byte{}, 0, err
	}
	return Digest(h), n, nil
}
