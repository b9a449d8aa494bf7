//go:build linux

package trees

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/turnback/turnback/bench/gen"
	"github.com/turnback/turnback/bench/truth"
)

// Tree is a prepared tree: a directory the benchmark may modify plus its
// ground truth.
type Tree struct {
	Name     string // go, 10k, 100k, 1m, user:NAME
	Kind     string // go, synthetic, user
	Dir      string
	Truth    *truth.State
	Source   truth.Source // to repair the tree; nil for --in-place trees
	Files    int
	Dirs     int
	Links    int
	Bytes    int64
	PrepSecs float64 // generation/copy time this run (0 when cached)
	Cached   bool
	Info     map[string]any
	// truthPath is where the ground truth is cached ("": not cached).
	truthPath string
}

// Logf reports progress.
type Logf func(format string, args ...any)

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
	name := filepath.Join(dir, "marker.json")
	if err := os.WriteFile(name+".tmp", data, 0o644); err != nil {
		return err
	}
	return os.Rename(name+".tmp", name)
}

// ParseCount reads a file count: 10k, 100k, 1m, 2500 ...
func ParseCount(s string) (int, bool) {
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

// Synthetic returns the cached synthetic tree of n files from seed,
// generating it when the cache lacks it or holds another version.
func Synthetic(cacheDir, name string, n int, seed uint64, logf Logf) (*Tree, error) {
	dir := filepath.Join(cacheDir, fmt.Sprintf("synth-%d-seed%d", n, seed))
	tree := filepath.Join(dir, "tree")
	t := &Tree{Name: name, Kind: "synthetic", Dir: tree, truthPath: filepath.Join(dir, "manifest.gob"), Info: map[string]any{"seed": seed, "generator": gen.Version}}
	var lay *gen.Layout
	t.Source = lazySource(func() truth.Source {
		if lay == nil {
			lay = gen.Plan(n, seed)
		}
		return lay
	})
	if mk, ok := readMarker(dir); ok && mk.Generator == gen.Version && mk.Seed == seed && mk.Files == n {
		ref, err := truth.Load(t.truthPath)
		if err == nil {
			t.Truth, t.Cached = ref, true
			t.Info["generation_seconds_when_made"] = mk.GenSecs
			logf("%s: cached synthetic tree %s (generated in %.0fs)", name, tree, mk.GenSecs)
			return t.finish(), nil
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
	lay = gen.Plan(n, seed)
	logf("%s: layout planned in %.1fs (%d dirs)", name, time.Since(start).Seconds(), lay.Dirs())
	ref, err := lay.Generate(tree, 0, func(done, total int) {
		logf("%s: generated %d/%d files (%.0fs)", name, done, total, time.Since(start).Seconds())
	})
	if err != nil {
		return nil, fmt.Errorf("trees: generate %s: %w", name, err)
	}
	t.Truth, t.PrepSecs = ref, time.Since(start).Seconds()
	if err := t.cache(dir, &marker{Generator: gen.Version, Seed: seed, Files: n}); err != nil {
		return nil, err
	}
	files, _, _, bytes := ref.Stats()
	logf("%s: generated %d regular files, %.1f MB, in %.1fs", name, files, float64(bytes)/1e6, t.PrepSecs)
	return t.finish(), nil
}

// cache saves the ground truth of a tree just made and then its marker
// mk (completed with the size, the time and the preparation time).
func (t *Tree) cache(dir string, mk *marker) error {
	if err := t.Save(); err != nil {
		return err
	}
	files, _, _, bytes := t.Truth.Stats()
	if mk.Files == 0 {
		mk.Files = files
	}
	mk.Bytes, mk.Created, mk.GenSecs = bytes, time.Now().UTC(), t.PrepSecs
	return writeMarker(dir, mk)
}

type lazySource func() truth.Source

func (f lazySource) Content(rel string) (io.ReadCloser, error) { return f().Content(rel) }

// dirSource reads reference content from a pristine directory.
type dirSource string

func (d dirSource) Content(rel string) (io.ReadCloser, error) {
	return os.Open(filepath.Join(string(d), filepath.FromSlash(rel)))
}

// finish fills the counts from the ground truth.
func (t *Tree) finish() *Tree {
	t.Files, t.Dirs, t.Links, t.Bytes = t.Truth.Stats()
	return t
}

// CheckPristine verifies a prepared tree against its ground truth and
// repairs it from its source if a previous run was interrupted mid-turn.
func (t *Tree) CheckPristine(logf Logf) error {
	start := time.Now()
	v, err := truth.Verify(t.Dir, t.Truth, false)
	if err != nil {
		return err
	}
	if v.Count > 0 {
		logf("%s: tree differs from its reference in %d paths (e.g. %s); repairing", t.Name, v.Count, v.Mismatches[0])
		if err := truth.Repair(t.Dir, t.Truth, t.Source); err != nil {
			return err
		}
	}
	logf("%s: verified against its reference in %.1fs (%d files re-read)", t.Name, time.Since(start).Seconds(), v.Rehashed)
	return t.Save()
}

// Save stores updated stat data of a cached tree's ground truth.
func (t *Tree) Save() error {
	if t.truthPath == "" {
		return nil
	}
	return t.Truth.Save(t.truthPath)
}
