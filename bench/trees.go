//go:build linux

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Tree is a prepared tree: a directory the benchmark may modify (turns
// are applied and undone in it) plus its reference manifest.
type Tree struct {
	Name     string // go, 10k, 100k, 1m, user:NAME
	Kind     string // go, synthetic, user
	Dir      string
	Manifest *Manifest
	Source   Source // to repair the tree; nil for --in-place trees
	Files    int
	Dirs     int
	Links    int
	Bytes    int64
	PrepSecs float64 // generation/copy time this run (0 when cached)
	Cached   bool
	manPath  string // where the manifest is cached ("" = not cached)
	Info     map[string]any
}

// marker is written next to a cached tree once it is complete.
type marker struct {
	Generator string    `json:"generator"`
	Seed      uint64    `json:"seed,omitempty"`
	Files     int       `json:"files"`
	Bytes     int64     `json:"bytes"`
	Source    string    `json:"source,omitempty"`
	GoVersion string    `json:"go_version,omitempty"`
	Created   time.Time `json:"created"`
	GenSecs   float64   `json:"generation_seconds"`
}

func readMarker(dir string) (*marker, bool) {
	data, err := os.ReadFile(filepath.Join(dir, "marker.json"))
	if err != nil {
		return nil, false
	}
	var m marker
	if json.Unmarshal(data, &m) != nil {
		return nil, false
	}
	return &m, true
}

func writeMarker(dir string, m *marker) error {
	data, _ := json.MarshalIndent(m, "", "  ")
	return writeAtomic(filepath.Join(dir, "marker.json"), data)
}

func writeAtomic(name string, data []byte) error {
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}

// parseCount reads 10k, 100k, 1m, 2500 ...
func parseCount(s string) (int, bool) {
	t := strings.ToLower(s)
	mult := 1
	switch {
	case strings.HasSuffix(t, "k"):
		mult, t = 1000, strings.TrimSuffix(t, "k")
	case strings.HasSuffix(t, "m"):
		mult, t = 1_000_000, strings.TrimSuffix(t, "m")
	}
	n, err := strconv.Atoi(t)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n * mult, true
}

// prepareSynthetic returns the cached synthetic tree of n files,
// generating it when the cache lacks it or holds another version.
func prepareSynthetic(cacheDir, name string, n int, seed uint64, logf func(string, ...any)) (*Tree, error) {
	dir := filepath.Join(cacheDir, fmt.Sprintf("synth-%d-seed%d", n, seed))
	tree := filepath.Join(dir, "tree")
	man := filepath.Join(dir, "manifest.gob")
	t := &Tree{Name: name, Kind: "synthetic", Dir: tree, manPath: man, Info: map[string]any{"seed": seed, "generator": generatorVersion}}
	var lay *synthLayout
	source := lazySource(func() Source {
		if lay == nil {
			lay = layout(n, seed)
		}
		return lay
	})
	t.Source = source
	if mk, ok := readMarker(dir); ok && mk.Generator == generatorVersion && mk.Seed == seed && mk.Files == n {
		m, err := loadManifest(man)
		if err == nil {
			t.Manifest, t.Cached = m, true
			t.Info["generation_seconds_when_made"] = mk.GenSecs
			logf("%s: cached synthetic tree %s (generated in %.0fs)", name, tree, mk.GenSecs)
			return t, finishTree(t)
		}
		logf("%s: cached manifest unreadable (%v); regenerating", name, err)
	}
	logf("%s: generating %d files (seed %d) into %s", name, n, seed, tree)
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	start := time.Now()
	lay = layout(n, seed)
	logf("%s: layout planned in %.1fs (%d dirs)", name, time.Since(start).Seconds(), len(lay.dirs))
	m, err := lay.generate(tree, 0, func(done, total int) {
		logf("%s: generated %d/%d files (%.0fs)", name, done, total, time.Since(start).Seconds())
	})
	if err != nil {
		return nil, fmt.Errorf("generate %s: %w", name, err)
	}
	secs := time.Since(start).Seconds()
	t.Manifest, t.PrepSecs = m, secs
	if err := m.save(man); err != nil {
		return nil, err
	}
	files, _, _, bytes := m.Stats()
	if err := writeMarker(dir, &marker{Generator: generatorVersion, Seed: seed, Files: n, Bytes: bytes, Created: time.Now().UTC(), GenSecs: secs}); err != nil {
		return nil, err
	}
	logf("%s: generated %d regular files, %.1f MB, in %.1fs", name, files, float64(bytes)/1e6, secs)
	return t, finishTree(t)
}

type lazySource func() Source

func (f lazySource) Content(rel string) (io.ReadCloser, error) { return f().Content(rel) }

// dirSource reads reference content from a pristine directory.
type dirSource string

func (d dirSource) Content(rel string) (io.ReadCloser, error) {
	return os.Open(filepath.Join(string(d), filepath.FromSlash(rel)))
}

// prepareGo returns the cached copy of $(go env GOROOT)/src.
func prepareGo(cacheDir string, logf func(string, ...any)) (*Tree, error) {
	out, err := exec.Command("go", "env", "GOROOT", "GOVERSION").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOROOT: %w", err)
	}
	lines := strings.Fields(string(out))
	if len(lines) < 2 {
		return nil, fmt.Errorf("go env: unexpected output %q", out)
	}
	goroot, gover := lines[0], lines[1]
	srcDir := filepath.Join(goroot, "src")
	dir := filepath.Join(cacheDir, "go-"+gover)
	tree := filepath.Join(dir, "tree")
	man := filepath.Join(dir, "manifest.gob")
	t := &Tree{Name: "go", Kind: "go", Dir: tree, manPath: man, Source: dirSource(srcDir), Info: map[string]any{"goroot": goroot, "go_version": gover}}
	if mk, ok := readMarker(dir); ok && mk.Generator == "goroot-copy/1" && mk.Source == srcDir && mk.GoVersion == gover {
		if m, err := loadManifest(man); err == nil {
			t.Manifest, t.Cached = m, true
			logf("go: cached copy of %s (%s)", srcDir, gover)
			return t, finishTree(t)
		}
	}
	logf("go: copying %s into %s", srcDir, tree)
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	start := time.Now()
	m, err := copyTree(srcDir, tree)
	if err != nil {
		return nil, err
	}
	t.Manifest, t.PrepSecs = m, time.Since(start).Seconds()
	if err := m.save(man); err != nil {
		return nil, err
	}
	files, _, _, bytes := m.Stats()
	if err := writeMarker(dir, &marker{Generator: "goroot-copy/1", Source: srcDir, GoVersion: gover, Files: files, Bytes: bytes, Created: time.Now().UTC(), GenSecs: t.PrepSecs}); err != nil {
		return nil, err
	}
	return t, finishTree(t)
}

// prepareUser copies a folder the user named into a scratch directory
// (or, with inPlace, uses it as it is).
func prepareUser(cacheDir, src string, inPlace bool, logf func(string, ...any)) (*Tree, error) {
	abs, err := filepath.Abs(src)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("--tree %s: not a directory", src)
	}
	sum := sha256.Sum256([]byte(abs))
	name := "user:" + filepath.Base(abs)
	t := &Tree{Name: name, Kind: "user", Info: map[string]any{"source": abs, "in_place": inPlace}}
	start := time.Now()
	if inPlace {
		logf("%s: using %s in place (hashing it for verification)", name, abs)
		m, err := scanManifest(abs)
		if err != nil {
			return nil, err
		}
		t.Dir, t.Manifest = abs, m
	} else {
		dst := filepath.Join(cacheDir, "user-"+hex.EncodeToString(sum[:6]), "tree")
		logf("%s: copying %s into %s", name, abs, dst)
		if err := os.RemoveAll(filepath.Dir(dst)); err != nil {
			return nil, err
		}
		m, err := copyTree(abs, dst)
		if err != nil {
			return nil, err
		}
		t.Dir, t.Manifest, t.Source = dst, m, dirSource(abs)
	}
	t.PrepSecs = time.Since(start).Seconds()
	return t, finishTree(t)
}

func finishTree(t *Tree) error {
	t.Files, t.Dirs, t.Links, t.Bytes = t.Manifest.Stats()
	return nil
}

// copyTree copies src to dst (regular files, directories, symlinks; other
// kinds skipped) and returns dst's manifest, hashing while copying.
func copyTree(src, dst string) (*Manifest, error) {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return nil, err
	}
	m := newManifest()
	var mu sync.Mutex
	var dirs []struct {
		rel  string
		perm fs.FileMode
	}
	err := walkTree(src, 0, func(rel string, fi fs.FileInfo) error {
		to := filepath.Join(dst, filepath.FromSlash(rel))
		switch {
		case fi.IsDir():
			// Writable while copying; the final mode is set afterwards.
			if err := os.MkdirAll(to, 0o755); err != nil {
				return err
			}
			mu.Lock()
			dirs = append(dirs, struct {
				rel  string
				perm fs.FileMode
			}{rel, fi.Mode().Perm() | 0o700})
			mu.Unlock()
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(filepath.Join(src, filepath.FromSlash(rel)))
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(target, to); err != nil {
				return err
			}
			fi2, err := os.Lstat(to)
			if err != nil {
				return err
			}
			var e Entry
			statEntry(&e, fi2)
			m.add(rel, e, target)
		case fi.Mode().IsRegular():
			if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				return err
			}
			s, err := copyFile(filepath.Join(src, filepath.FromSlash(rel)), to, fi.Mode().Perm()|0o600)
			if err != nil {
				return err
			}
			fi2, err := os.Lstat(to)
			if err != nil {
				return err
			}
			var e Entry
			statEntry(&e, fi2)
			e.Sum = s
			m.add(rel, e, "")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, d := range dirs {
		p := filepath.Join(dst, filepath.FromSlash(d.rel))
		if err := os.Chmod(p, d.perm); err != nil {
			return nil, err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return nil, err
		}
		var e Entry
		statEntry(&e, fi)
		m.add(d.rel, e, "")
	}
	m.index()
	return m, nil
}

func copyFile(from, to string, perm fs.FileMode) ([16]byte, error) {
	var s [16]byte
	in, err := os.Open(from)
	if err != nil {
		return s, err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return s, err
	}
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(out, h), in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(to, perm)
	}
	copy(s[:], h.Sum(nil)[:16])
	return s, err
}

// checkPristine verifies a prepared tree against its manifest and repairs
// it from its source if a previous run was interrupted mid-turn.
func checkPristine(t *Tree, logf func(string, ...any)) error {
	start := time.Now()
	v, err := verify(t.Dir, t.Manifest, false)
	if err != nil {
		return err
	}
	if v.Count > 0 {
		logf("%s: tree differs from its reference in %d paths (e.g. %s); repairing", t.Name, v.Count, v.Mismatches[0])
		if err := repair(t.Dir, t.Manifest, t.Source); err != nil {
			return err
		}
	}
	logf("%s: verified against its reference in %.1fs (%d files re-read)", t.Name, time.Since(start).Seconds(), v.Rehashed)
	return t.saveManifest()
}

// saveManifest stores updated stat data of a cached tree's manifest.
func (t *Tree) saveManifest() error {
	if t.manPath == "" {
		return nil
	}
	return t.Manifest.save(t.manPath)
}

func numCPU() int { return runtime.NumCPU() }
