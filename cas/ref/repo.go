package ref

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Repo is a git repository as found from a directory of its work tree.
type Repo struct {
	// WorkTree is the directory holding .git.
	WorkTree string
	// GitDir is the repository's own git directory: .git, or what a
	// .git file names (a worktree's or a submodule's).
	GitDir string
	// CommonDir holds the objects, config and LFS store: GitDir, or what
	// its commondir file names (linked worktrees).
	CommonDir string
	// LFSDir is the Git LFS storage directory (objects/ below it):
	// lfs.storage from the common config (relative to CommonDir), or
	// CommonDir/lfs.
	LFSDir string
}

// ObjectsDir is the git object database.
func (r *Repo) ObjectsDir() string { return filepath.Join(r.CommonDir, "objects") }

// LFSObjectsDir is where Git LFS keeps objects.
func (r *Repo) LFSObjectsDir() string { return filepath.Join(r.LFSDir, "objects") }

// maxGitFile bounds the small files read from a git directory (.git
// files, commondir, config).
const maxGitFile = 1 << 20

// findRepo returns the repository whose work tree holds the absolute
// directory dir: the nearest of dir and its ancestors with a .git
// directory or file. It returns nil, nil when there is none.
func findRepo(dir string) (*Repo, error) {
	for d := filepath.Clean(dir); ; {
		r, err := repoAt(d)
		if r != nil || err != nil {
			return r, err
		}
		up := filepath.Dir(d)
		if up == d {
			return nil, nil
		}
		d = up
	}
}

// repoAt opens the repository whose .git is in dir, nil if there is none.
func repoAt(dir string) (*Repo, error) {
	dotgit := filepath.Join(dir, ".git")
	fi, err := os.Stat(dotgit)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("ref: %s: %w", dotgit, err)
	}
	gitDir := dotgit
	if fi.Mode().IsRegular() {
		data, err := readSmall(dotgit)
		if err != nil {
			return nil, err
		}
		line, _, _ := strings.Cut(string(data), "\n")
		target, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "gitdir:")
		if !ok {
			return nil, fmt.Errorf("ref: %s: not a gitdir file", dotgit)
		}
		target = strings.TrimSpace(target)
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		gitDir = filepath.Clean(target)
	} else if !fi.IsDir() {
		return nil, nil
	}
	r := &Repo{WorkTree: dir, GitDir: gitDir, CommonDir: gitDir}
	if data, err := readSmall(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(data))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		r.CommonDir = filepath.Clean(c)
	}
	r.LFSDir = filepath.Join(r.CommonDir, "lfs")
	if data, err := readSmall(filepath.Join(r.CommonDir, "config")); err == nil {
		if s := configValue(data, "lfs", "storage"); s != "" {
			if !filepath.IsAbs(s) {
				s = filepath.Join(r.CommonDir, s)
			}
			r.LFSDir = filepath.Clean(s)
		}
	}
	return r, nil
}

func readSmall(name string) ([]byte, error) {
	f, err := openRegular(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// One Read may return less than the file holds (FUSE, network
	// filesystems): read to the end or the bound.
	buf, err := io.ReadAll(io.LimitReader(f, maxGitFile))
	if err != nil {
		return nil, fmt.Errorf("ref: %s: %w", name, err)
	}
	return buf, nil
}

// configValue returns the last value of section.key in a git config
// file (section and key case-insensitive; subsections not supported,
// which lfs.storage does not use), "" if absent.
func configValue(data []byte, section, key string) string {
	var val, cur string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				cur = ""
				continue
			}
			cur = strings.ToLower(strings.TrimSpace(line[1:end]))
			line = strings.TrimSpace(line[end+1:])
			if line == "" {
				continue
			}
		}
		if cur != section {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), key) {
			continue
		}
		v = strings.TrimSpace(v)
		if i := strings.IndexAny(v, "#;"); i >= 0 && !strings.HasPrefix(v, "\"") {
			v = strings.TrimSpace(v[:i])
		}
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = v[1 : len(v)-1]
		}
		val = v
	}
	return val
}

// Finder finds references for one capture, remembering which repository
// each directory belongs to and each object database's packs. It is
// safe for concurrent use.
type Finder struct {
	mu      sync.Mutex
	repos   map[string]*Repo // directory -> its repository (nil: none)
	odbs    map[string]*ODB
	attrs   map[string][]string // work tree -> its .gitattributes patterns with filter=lfs
	exclude []string            // see Exclude
}

// Exclude makes Find and Check refuse places inside the directory dir
// (the work tree of the capture) that are not under a directory named
// .git: a restore of that work tree may delete or rewrite them, so
// content they hold is not protected. (lfs.storage inside the work tree,
// or a ".git" file naming a repository kept there, such as the "gitdir:
// ./.bare" layout, put an object store there; a large file would
// otherwise count as held by its own copy, and an undo deleting both
// could not bring them back.) Symlinks in dir and in the places are
// resolved where they exist.
func (f *Finder) Exclude(dir string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.exclude = append(f.exclude, filepath.Clean(dir))
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != filepath.Clean(dir) {
		f.exclude = append(f.exclude, real)
	}
}

// excluded reports whether place is inside an excluded directory and
// not under a .git directory there.
func (f *Finder) excluded(place string) bool {
	if f == nil {
		return false
	}
	f.mu.Lock()
	ex := f.exclude
	f.mu.Unlock()
	if len(ex) == 0 {
		return false
	}
	places := []string{filepath.Clean(place)}
	if real, err := filepath.EvalSymlinks(place); err == nil {
		places = append(places, real)
	}
	for _, p := range places {
		for _, d := range ex {
			rel, err := filepath.Rel(d, p)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				continue
			}
			inGit := false
			for _, c := range strings.Split(rel, string(filepath.Separator)) {
				if c == ".git" {
					inGit = true
					break
				}
			}
			if !inGit {
				return true
			}
		}
	}
	return false
}

// NewFinder returns an empty Finder.
func NewFinder() *Finder {
	return &Finder{repos: map[string]*Repo{}, odbs: map[string]*ODB{}, attrs: map[string][]string{}}
}

// Repo returns the repository holding the absolute directory dir, nil
// if there is none.
func (f *Finder) Repo(dir string) (*Repo, error) {
	f.mu.Lock()
	r, ok := f.repos[dir]
	f.mu.Unlock()
	if ok {
		return r, nil
	}
	r, err := findRepo(dir)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.repos[dir] = r
	f.mu.Unlock()
	return r, nil
}

// ODB returns the object database in directory dir, opened once.
func (f *Finder) ODB(dir string) *ODB {
	f.mu.Lock()
	defer f.mu.Unlock()
	o := f.odbs[dir]
	if o == nil {
		o = OpenODB(dir)
		f.odbs[dir] = o
	}
	return o
}

// Find returns the references holding content with record rec's digests
// for a file in the absolute directory dir: its repository's LFS object
// (present with the right size) and git blob (present in the object
// database). It reads no content; Open verifies when it is used.
func (f *Finder) Find(dir string, rec *Record) ([]Ref, error) {
	repo, err := f.Repo(dir)
	if err != nil || repo == nil {
		return nil, err
	}
	var out []Ref
	lfs := Ref{Kind: LFS, Dir: repo.LFSObjectsDir()}
	if rec.SHA256 != ([32]byte{}) && f.Check(lfs, rec, "") == nil {
		out = append(out, lfs)
	}
	git := Ref{Kind: Git, Dir: repo.ObjectsDir()}
	if rec.GitOID != ([20]byte{}) && f.Check(git, rec, "") == nil {
		out = append(out, git)
	}
	return out, nil
}

// LFSPath is where an LFS object with the given sha256 sits.
func LFSPath(dir string, sum [32]byte) string {
	h := hex.EncodeToString(sum[:])
	return filepath.Join(dir, h[:2], h[2:4], h)
}

// ClonePath is where the clone of content h (hex BLAKE3) sits.
func ClonePath(dir, h string) string { return filepath.Join(dir, h) }
