package gitindex

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/turnback/turnback/walker/ignore"
)

// maxIndex bounds the index files read: 1 GiB, ten times a 1M-file
// repository's.
const maxIndex = 1 << 30

// Set is the directories of one work-tree scope that hold tracked paths
// (at any depth), and the submodules, and the tracked files (symlinks
// included), by slash path relative to the scope. It is immutable and
// safe for concurrent use.
type Set struct {
	dirs  map[string]struct{}
	files fileList
	// named: the directories of dirs with a built-in name
	// (ignore.IsBuiltin), sorted.
	named []string
}

// HasFile reports whether git tracks rel as a file or symlink. A nil
// Set holds nothing.
func (s *Set) HasFile(rel string) bool {
	return s != nil && s.files.has(rel)
}

// Has reports whether directory rel holds a tracked path or is a
// tracked submodule (or a sparse index's directory). A nil Set holds
// nothing.
func (s *Set) Has(rel string) bool {
	if s == nil {
		return false
	}
	_, ok := s.dirs[rel]
	return ok
}

// AppendList appends to buf what git tracks directly in directory dir
// ("" the top): each file or symlink by its name and a NUL, and once
// each subdirectory holding tracked files by its name and a "/", in
// the index's order. Submodules and a sparse index's directories hold
// no files here: they are not listed.
func (s *Set) AppendList(buf []byte, dir string) []byte {
	if s == nil || dir != "" && !s.Has(dir) {
		return buf
	}
	return s.files.appendChildren(buf, dir)
}

// AppendNamed appends to buf the directories below dir ("" the top)
// that hold tracked paths and have a name a walker skips by name
// alone (ignore.BuiltinDirs), by their paths relative to dir, sorted.
// Few repositories track any: then it appends nothing, at once.
func (s *Set) AppendNamed(buf []string, dir string) []string {
	if s == nil || len(s.named) == 0 {
		return buf
	}
	if dir == "" {
		return append(buf, s.named...)
	}
	pre := dir + "/"
	i, _ := slices.BinarySearch(s.named, pre)
	for ; i < len(s.named) && strings.HasPrefix(s.named[i], pre); i++ {
		buf = append(buf, s.named[i][len(pre):])
	}
	return buf
}

// Len is the number of directories in s.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.dirs)
}

// Build decodes an index (see Decode) and returns the Set of its
// directories and files below prefix (a slash path relative to the
// repository's top, "" for all of it), relative to prefix.
func Build(r io.ReaderAt, size int64, sha256 bool, gitDir fs.FS, prefix string) (*Set, error) {
	s := &Set{dirs: map[string]struct{}{}}
	s.files.init(size)
	pre := []byte(prefix)
	if len(pre) > 0 {
		pre = append(pre, '/')
	}
	var last []byte // the last directory added, to skip its siblings fast
	err := Decode(r, size, sha256, gitDir, func(e *Entry) error {
		p, ok := bytes.CutPrefix(e.Path, pre)
		if !ok {
			return nil
		}
		p = bytes.TrimSuffix(p, []byte("/"))
		dir := p
		if !e.IsDir() {
			s.files.add(p)
			i := bytes.LastIndexByte(p, '/')
			if i < 0 {
				return nil
			}
			dir = p[:i]
		}
		if bytes.Equal(dir, last) {
			return nil
		}
		for d := dir; len(d) > 0; {
			if _, ok := s.dirs[string(d)]; ok {
				break
			}
			s.dirs[string(d)] = struct{}{}
			i := bytes.LastIndexByte(d, '/')
			if ignore.IsBuiltin(string(d[i+1:]), true) {
				s.named = append(s.named, string(d))
			}
			if i < 0 {
				break
			}
			d = d[:i]
		}
		last = append(last[:0], dir...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.files.done()
	slices.Sort(s.named)
	return s, nil
}

// GitDir returns the git directory of the repository whose ".git" is
// in dir (an absolute path): dir/.git, or what a ".git" file names.
// ok is false when dir holds no ".git".
func GitDir(dir string) (gitDir string, ok bool, err error) {
	dotgit := filepath.Join(dir, ".git")
	fi, err := os.Lstat(dotgit)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("gitindex: %w", err)
	}
	if fi.IsDir() {
		return dotgit, true, nil
	}
	if !fi.Mode().IsRegular() {
		return "", false, nil
	}
	data, err := readSmall(dotgit, 4<<10)
	if err != nil {
		return "", false, err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	target, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "gitdir:")
	if !ok {
		return "", false, nil
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	return filepath.Clean(target), true, nil
}

// FindTop returns the nearest of dir (absolute) and its ancestors that
// holds a ".git", and dir's slash path relative to it; ok is false when
// there is none.
func FindTop(dir string) (top, prefix string, ok bool) {
	dir = filepath.Clean(dir)
	for d := dir; ; {
		if fi, err := os.Lstat(filepath.Join(d, ".git")); err == nil && (fi.IsDir() || fi.Mode().IsRegular()) {
			rel, err := filepath.Rel(d, dir)
			if err != nil {
				return "", "", false
			}
			if rel == "." {
				rel = ""
			}
			return d, filepath.ToSlash(rel), true
		}
		up := filepath.Dir(d)
		if up == d {
			return "", "", false
		}
		d = up
	}
}

// usesSHA256 reports whether the repository's config (in gitDir, or the
// common directory it names) sets extensions.objectFormat = sha256.
func usesSHA256(gitDir string) bool {
	common := gitDir
	if data, err := readSmall(filepath.Join(gitDir, "commondir"), 4<<10); err == nil {
		c := strings.TrimSpace(string(data))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		common = filepath.Clean(c)
	}
	data, err := readSmall(filepath.Join(common, "config"), 1<<20)
	if err != nil {
		return false
	}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.ToLower(strings.TrimSpace(sc.Text()))
		if strings.HasPrefix(line, "[") {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				section = ""
				continue
			}
			section = strings.TrimSpace(line[1:end])
			line = strings.TrimSpace(line[end+1:])
		}
		k, v, ok := strings.Cut(line, "=")
		if ok && section == "extensions" && strings.TrimSpace(k) == "objectformat" {
			return strings.Trim(strings.TrimSpace(v), "\"") == "sha256"
		}
	}
	return false
}

func readSmall(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

// Stamp identifies one version of an index file by its stat: git
// replaces the file by a rename, never writes it in place.
type Stamp struct {
	Path  string
	Size  int64
	MTime int64
	Ino   uint64
}

// Cache keeps the Set of each index it loaded, by path and Stamp. Safe
// for concurrent use; the zero value is ready.
type Cache struct {
	mu sync.Mutex
	m  map[cacheKey]*cached
}

type cacheKey struct{ index, prefix string }

type cached struct {
	stamp Stamp
	set   *Set
}

// Load returns the Set of the repository whose ".git" is in dir,
// restricted to prefix (see Build), and the Stamp of the index it read.
// A repository without an index (a fresh one, a bare layout) has an
// empty Set. An index that cannot be read or decoded is an error; the
// caller then treats nothing as tracked.
func (c *Cache) Load(dir, prefix string) (*Set, Stamp, error) {
	gitDir, ok, err := GitDir(dir)
	if err != nil || !ok {
		return nil, Stamp{}, err
	}
	index := filepath.Join(gitDir, "index")
	f, err := os.Open(index)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, Stamp{Path: index}, nil
	}
	if err != nil {
		return nil, Stamp{}, fmt.Errorf("gitindex: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, Stamp{}, fmt.Errorf("gitindex: %w", err)
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxIndex {
		return nil, Stamp{}, fmt.Errorf("gitindex: %s: not a regular file under %d bytes", index, maxIndex)
	}
	st := StampOf(index, fi)
	key := cacheKey{index, prefix}
	if c != nil {
		c.mu.Lock()
		e := c.m[key]
		c.mu.Unlock()
		if e != nil && e.stamp == st {
			return e.set, st, nil
		}
	}
	set, err := Build(f, fi.Size(), usesSHA256(gitDir), os.DirFS(gitDir), prefix)
	if err != nil {
		return nil, Stamp{}, fmt.Errorf("gitindex: %s: %w", index, err)
	}
	if c != nil {
		c.mu.Lock()
		if c.m == nil {
			c.m = map[cacheKey]*cached{}
		}
		c.m[key] = &cached{stamp: st, set: set}
		c.mu.Unlock()
	}
	return set, st, nil
}

// Current reports whether every stamp still describes its index file.
func Current(stamps []Stamp) bool {
	for _, s := range stamps {
		fi, err := os.Stat(s.Path)
		if err != nil {
			if s.Size == 0 && s.MTime == 0 && errors.Is(err, fs.ErrNotExist) {
				continue // there was none, and there is none
			}
			return false
		}
		if StampOf(s.Path, fi) != s {
			return false
		}
	}
	return true
}
