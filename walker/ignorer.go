package walker

import (
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"

	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/walker/ignore"
)

// Ignorer answers, for any path of a work tree, whether Capture ignores
// it: the built-in rules, the ignore files of every directory from the
// root down (read as Capture reads them), and the rule that everything
// inside an ignored directory is ignored. It is for callers that judge
// single paths (a file watcher), not whole directories.
//
// Each directory's ignore files are read once and kept; after they may
// have changed, or the directory was created, removed or renamed, Forget
// drops what is kept for it and everything below it. Safe for
// concurrent use.
type Ignorer struct {
	root  *os.Root
	track *tracking
	mu    sync.Mutex
	dirs  map[string]*ignorerDir // by slash-separated path, "" the root
}

type ignorerDir struct {
	m       *ignore.Matcher // for the directory's entries
	ignored bool            // the directory itself is ignored (m is nil)
	kids    map[string]bool // names of subdirectories kept in dirs
}

// NewIgnorer returns an Ignorer reading ignore files through root, which
// must stay open while the Ignorer is used.
func NewIgnorer(root *os.Root) *Ignorer {
	return &Ignorer{root: root, track: newTracking(root, nil), dirs: map[string]*ignorerDir{}}
}

// Ignored reports whether rel (slash-separated, relative to the work
// tree) is ignored; isDir says whether it is a directory. The root ("")
// is never ignored.
func (g *Ignorer) Ignored(rel string, isDir bool) bool {
	if rel == "" || rel == "." {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	d := g.dir(manifest.ParentPath(rel))
	return d.ignored || d.m.Ignored(rel, isDir)
}

// Forget drops what is kept for directory rel and every directory below
// it ("" drops everything).
func (g *Ignorer) Forget(rel string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if rel == "." {
		rel = ""
	}
	if rel != "" {
		if p, ok := g.dirs[manifest.ParentPath(rel)]; ok {
			delete(p.kids, path.Base(rel))
		}
	}
	g.forget(rel)
}

func (g *Ignorer) forget(rel string) {
	d, ok := g.dirs[rel]
	if !ok {
		return
	}
	delete(g.dirs, rel)
	for k := range d.kids {
		g.forget(manifest.JoinPath(rel, k))
	}
}

// Listed tells the Ignorer which names directory rel holds as regular
// files, from a listing the caller just made: the directory's ignore
// files are then read only if the listing has them, instead of being
// looked up one by one through a descriptor opened from the root (for a
// file watcher that lists every directory anyway). Nothing happens if
// rel is already known. A listing taken before an ignore file appeared
// is the caller's to correct: an ignore file created later must be
// followed by Forget, as always.
func (g *Ignorer) Listed(rel string, regular func(name string) bool) {
	if rel == "." {
		rel = ""
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.dirs[rel]; ok {
		return
	}
	g.load(rel, regular)
}

// dir returns the kept state of directory rel, loading it (and its
// ancestors) if needed. g.mu is held.
func (g *Ignorer) dir(rel string) *ignorerDir {
	if d, ok := g.dirs[rel]; ok {
		return d
	}
	return g.load(rel, nil)
}

// load reads directory rel's state (its ancestors' as needed): its
// ignore files are those regular says are regular files, or, with
// regular nil, those an lstat finds. g.mu is held.
func (g *Ignorer) load(rel string, regular func(string) bool) *ignorerDir {
	has := func(string) bool { return true }
	if regular != nil {
		has = regular
	}
	anyIgnoreFile := false
	for _, n := range ignore.FileNames {
		anyIgnoreFile = anyIgnoreFile || has(n)
	}
	d := &ignorerDir{}
	if rel == "" {
		d.m = g.track.top(nil)
		if anyIgnoreFile {
			d.m = loadIgnoreFiles(g.root, "", d.m, regular)
		}
	} else {
		p := g.dir(manifest.ParentPath(rel))
		if p.kids == nil {
			p.kids = map[string]bool{}
		}
		p.kids[path.Base(rel)] = true
		v := ignore.Verdict{Ignored: true}
		if !p.ignored {
			v = p.m.Judge(rel, true)
		}
		rd := rootDir{root: g.root, rel: filepath.FromSlash(rel), regular: regular}
		switch {
		case v.Ignored || ignore.Evidence(path.Base(rel), v.Probe, rd) != "":
			d.ignored = true
		default:
			d.m = p.m
			if v.Source == ignore.SourceForced {
				d.m = d.m.Exclude(v) // only its tracked paths
			}
			if mode, ok := rd.Lookup(".git"); ok && g.track.abs != "" && (mode.IsDir() || mode.IsRegular()) {
				d.m = d.m.Track(rel, g.track.load(nil, filepath.Join(g.track.abs, rd.rel), "", rel))
			}
			if !anyIgnoreFile {
				break
			}
			if sub, err := g.root.OpenRoot(filepath.FromSlash(rel)); err == nil {
				d.m = loadIgnoreFiles(sub, rel, d.m, regular)
				sub.Close()
			}
		}
	}
	g.dirs[rel] = d
	return d
}

// loadIgnoreFiles pushes the ignore files of the directory open at d, as
// loadIgnores does from a listing: those regular names (with regular
// nil, those an lstat finds regular).
func loadIgnoreFiles(d *os.Root, rel string, m *ignore.Matcher, regular func(string) bool) *ignore.Matcher {
	if regular == nil {
		regular = func(fname string) bool {
			fi, err := d.Lstat(fname)
			return err == nil && fi.Mode().IsRegular()
		}
	}
	return pushIgnores(func(name string) (*os.File, error) { return openNoAtime(d, name) }, rel, m, regular)
}

// rootDir answers Evidence's questions about directory rel of root:
// regular (a listing's regular files, if known) for regular files, an
// lstat otherwise.
type rootDir struct {
	root    *os.Root
	rel     string
	regular func(string) bool
}

func (r rootDir) Lookup(name string) (fs.FileMode, bool) {
	if r.regular != nil {
		if r.regular(name) {
			return 0, true
		}
		if !lookupDirs[name] {
			return 0, false // not a regular file, and only asked for as one
		}
	}
	fi, err := r.root.Lstat(filepath.Join(r.rel, name))
	if err != nil {
		return 0, false
	}
	return fi.Mode(), true
}

func (r rootDir) Head(name string, n int) []byte {
	f, err := openNoAtime(r.root, filepath.Join(r.rel, name))
	if err != nil {
		return nil
	}
	defer f.Close()
	b := make([]byte, n)
	k, _ := io.ReadFull(f, b)
	return b[:k]
}

// lookupDirs are the names Lookup may be asked for as directories
// (".git", ignore's directory markers): with a listing of regular files
// at hand, only these need an lstat.
var lookupDirs = map[string]bool{".git": true, "conda-meta": true, "meson-private": true}
