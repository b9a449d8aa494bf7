//go:build linux && (amd64 || arm64)

package walker

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/manifest/treetest"
)

// namesOf is treepath.Names (which imports this package): for each
// directory above a path of scope that is not itself one, the names
// on the way.
func namesOf(scope []string) (map[string][]string, func(string) bool) {
	given, dirty := map[string]bool{}, map[string]bool{"": true}
	sets := map[string]map[string]bool{"": {}}
	for _, p := range scope {
		given[p] = true
		for q := p; q != "." && q != ""; q = path.Dir(q) {
			dirty[q] = true
			d := path.Dir(q)
			if d == "." {
				d = ""
			}
			if sets[d] == nil {
				sets[d] = map[string]bool{}
			}
			sets[d][path.Base(q)] = true
		}
	}
	out := map[string][]string{}
	for d, set := range sets {
		if given[d] {
			continue
		}
		var ns []string
		for n := range set {
			ns = append(ns, n)
		}
		sort.Strings(ns)
		out[d] = ns
	}
	return out, func(rel string) bool { return dirty[rel] }
}

// byName sets opts up as a scoped capture of scope on base does
// (the root package's scopePlan).
func byName(opts Options, base cas.Hash, scope []string) Options {
	names, dirty := namesOf(scope)
	opts.Base, opts.Previous, opts.Dirty, opts.Uncounted = base, base, dirty, true
	opts.Names = func(rel string) ([]string, bool) {
		n, ok := names[rel]
		return n, ok
	}
	return opts
}

// namesTree is the work tree of the read-by-name tests: d/ is a large
// directory holding the turn's paths.
func namesTree(t *testing.T) string {
	dir := t.TempDir()
	nodes := []node{
		fileNode("top.txt", 0o644, "top"),
		fileNode(".gitignore", 0o644, "*.log\n"),
		fileNode("d/skip.log", 0o644, "ignored"),
		fileNode("d/sub/g.txt", 0o644, "g"),
		fileNode("d/sub/deeper/h.txt", 0o644, "h"),
		fileNode("d/big.bin", 0o644, strings.Repeat("b", 300)),
		linkNode("d/link", "f0.txt"),
		fileNode("d/build/run.sh", 0o755, "#!/bin/sh\n"),
		fileNode("e/e1.txt", 0o644, "e1"),
		dirNode("e/empty", 0o755),
	}
	for i := range 40 {
		nodes = append(nodes, fileNode(fmt.Sprintf("d/f%d.txt", i), 0o644, fmt.Sprintf("f%d", i)))
	}
	build(t, dir, nodes)
	return dir
}

func write(t *testing.T, dir, rel, data string) {
	t.Helper()
	treetest.MustWrite(t, dir, treetest.Tree{rel: treetest.File(data, 0o644)})
}

func symlink(t *testing.T, dir, target, rel string) {
	t.Helper()
	if err := os.Symlink(target, abs(dir, rel)); err != nil {
		t.Fatal(err)
	}
}

func hardlink(t *testing.T, dir, from, to string) {
	t.Helper()
	if err := os.Link(abs(dir, from), abs(dir, to)); err != nil {
		t.Fatal(err)
	}
}

// elsewhereEdits change e/, which a capture of paths in d/ reuses.
func elsewhereEdits(t *testing.T, dir string) {
	write(t, dir, "e/e1.txt", "changed elsewhere")
	removeAll(t, dir, "e/empty")
}

// besideEdits change files of d/ (if still there) in place, beside the
// turn's paths: a capture reading d/ by name must not see them.
func besideEdits(t *testing.T, dir string) {
	if fi, err := os.Lstat(abs(dir, "d")); err != nil || !fi.IsDir() {
		return
	}
	write(t, dir, "d/f30.txt", "changed beside")
	chmod(t, dir, "d/f32.txt", 0o600)
}

// besideNames create and delete names of d/ (if still there) beside
// the turn's paths: a capture reading d/ by name lists d/, so it sees
// them as a full walk does.
func besideNames(t *testing.T, dir string) {
	if fi, err := os.Lstat(abs(dir, "d")); err != nil || !fi.IsDir() {
		return
	}
	write(t, dir, "d/beside.txt", "created beside")
	removeAll(t, dir, "d/f31.txt")
	write(t, dir, "d/beside.log", "ignored beside")
}

// TestNamesCapture: a capture reading d/ by name gives the root a full
// walk gives once the turn's paths changed (and the names that decide
// d's judgement, and the names created or deleted beside them), and
// leaves out what changed in place beside them. Where it
// must read d/ whole (a name a filesystem could normalise), it sees
// what changed beside the paths there; where it must read everything
// (a hard link whose group it cannot see), it gives the full walk's
// root of everything.
func TestNamesCapture(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		scope []string
		edit  func(t *testing.T, dir string) // the turn's paths, before the full walk
		// whole: what the capture must read beyond the names:
		// readNames, readDir (d/ whole), readAll (a full walk).
		whole int
	}{
		{"modified", []string{"d/f1.txt"}, func(t *testing.T, dir string) {
			write(t, dir, "d/f1.txt", "modified")
		}, readNames},
		{"unchanged", []string{"d/f1.txt"}, func(t *testing.T, dir string) {}, readNames},
		{"created", []string{"d/new.txt"}, func(t *testing.T, dir string) {
			write(t, dir, "d/new.txt", "new")
		}, readNames},
		{"created in new dirs", []string{"d/n1/n2/new.txt"}, func(t *testing.T, dir string) {
			write(t, dir, "d/n1/n2/new.txt", "new")
		}, readNames},
		{"deleted", []string{"d/f1.txt", "top.txt"}, func(t *testing.T, dir string) {
			removeAll(t, dir, "d/f1.txt")
			removeAll(t, dir, "top.txt")
		}, readNames},
		{"file replaced by dir", []string{"d/f1.txt"}, func(t *testing.T, dir string) {
			removeAll(t, dir, "d/f1.txt")
			write(t, dir, "d/f1.txt/in.txt", "in")
		}, readNames},
		{"dir replaced by file", []string{"d/sub/g.txt"}, func(t *testing.T, dir string) {
			removeAll(t, dir, "d/sub")
			write(t, dir, "d/sub", "a file now")
		}, readNames},
		{"parent a symlink", []string{"d/sub/g.txt"}, func(t *testing.T, dir string) {
			removeAll(t, dir, "d/sub")
			symlink(t, dir, "../e", "d/sub")
		}, readNames},
		{"parent gone", []string{"d/sub/deeper/h.txt"}, func(t *testing.T, dir string) {
			removeAll(t, dir, "d/sub")
		}, readNames},
		{"whole dir gone", []string{"d/f1.txt"}, func(t *testing.T, dir string) {
			removeAll(t, dir, "d")
		}, readNames},
		{"symlink retargeted", []string{"d/link"}, func(t *testing.T, dir string) {
			removeAll(t, dir, "d/link")
			symlink(t, dir, "f2.txt", "d/link")
		}, readNames},
		{"symlink replaces file", []string{"d/f1.txt"}, func(t *testing.T, dir string) {
			removeAll(t, dir, "d/f1.txt")
			symlink(t, dir, "f2.txt", "d/f1.txt")
		}, readNames},
		{"mode changed", []string{"d/f1.txt"}, func(t *testing.T, dir string) {
			chmod(t, dir, "d/f1.txt", 0o600)
		}, readNames},
		{"ignored now by its dir", []string{"d/f1.txt"}, func(t *testing.T, dir string) {
			write(t, dir, "d/.gitignore", "f1.txt\n")
		}, readNames},
		{"ignored now from the top", []string{"d/f1.txt"}, func(t *testing.T, dir string) {
			write(t, dir, ".gitignore", "*.log\n/d/f1.txt\n")
		}, readNames},
		{"kept now", []string{"d/skip.log"}, func(t *testing.T, dir string) {
			write(t, dir, "d/.ignore", "!skip.log\n")
		}, readNames},
		{"generated now", []string{"d/f1.txt"}, func(t *testing.T, dir string) {
			write(t, dir, "d/CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n")
		}, readNames},
		{"generated by name", []string{"d/build/out.o"}, func(t *testing.T, dir string) {
			write(t, dir, "d/build/out.o", "obj")
			write(t, dir, "d/build/CMakeCache.txt", "cmake")
		}, readNames},
		{"nested repository now", []string{"d/node_modules/x.js"}, func(t *testing.T, dir string) {
			write(t, dir, "d/node_modules/x.js", "tracked")
			git(t, abs(dir, "d"), "init", "-q")
			git(t, abs(dir, "d"), "add", "node_modules/x.js")
		}, readDir}, // a new index may track a name Base skipped
		{"over the size limit", []string{"d/f1.txt"}, func(t *testing.T, dir string) {
			write(t, dir, "d/f1.txt", strings.Repeat("x", 200))
		}, readNames},
		{"new large dir", []string{"d/many"}, func(t *testing.T, dir string) {
			for i := range 6 {
				write(t, dir, fmt.Sprintf("d/many/%d.txt", i), "m")
			}
		}, readNames},
		{"path now a dir, read whole", []string{"d/sub"}, func(t *testing.T, dir string) {
			write(t, dir, "d/sub/new.txt", "new")
		}, readNames},
		{"hard link within", []string{"d/f1.txt", "d/f2.txt"}, func(t *testing.T, dir string) {
			removeAll(t, dir, "d/f2.txt")
			hardlink(t, dir, "d/f1.txt", "d/f2.txt")
		}, readNames},
		{"control characters and spaces", []string{"d/a\tb\nc d.txt", "d/-x", "d/sub/ .."}, func(t *testing.T, dir string) {
			write(t, dir, "d/a\tb\nc d.txt", "odd")
			write(t, dir, "d/-x", "dash")
			write(t, dir, "d/sub/ ..", "dots")
		}, readNames},
		{"non-ASCII path", []string{"d/é.txt"}, func(t *testing.T, dir string) {
			write(t, dir, "d/é.txt", "é")
		}, readDir},
		{"hard link to an unread name", []string{"d/f1.txt"}, func(t *testing.T, dir string) {
			hardlink(t, dir, "d/f1.txt", "e/hl.txt")
		}, readAll},
	}
	for _, tt := range tests {
		// records: with a stat cache whose records hold the listings
		// (the top's is used where its stat still vouches for it).
		for _, records := range []bool{false, true} {
			name := tt.name
			if records {
				name += " records"
			}
			t.Run(name, func(t *testing.T) { namesCaptureCase(t, tt.scope, tt.edit, tt.whole, records) })
		}
	}
}

// namesCaptureCase is one case of TestNamesCapture.
func namesCaptureCase(t *testing.T, scope []string, edit func(t *testing.T, dir string), whole int, records bool) {
	t.Parallel()
	dir := namesTree(t)
	b := cas.NewMemory()
	s := newStoreOn(t, b)
	idx := &GitIndexes{}
	opts := Options{SizeLimit: 100, LargeDirFiles: 5, Index: idx}
	if records {
		opts.Cache = NewStatCache(b)
		ageTree(t, dir)
		time.Sleep(settle)
	}
	base := snap(t, dir, s, opts)
	edit(t, dir)
	full := opts
	full.Cache = nil // the records stay the base's
	full.Previous = base.Root
	besideNames(t, dir)
	if whole >= readDir {
		besideEdits(t, dir)
	}
	if whole >= readAll {
		elsewhereEdits(t, dir)
	}
	want := snap(t, dir, s, full)
	besideEdits(t, dir)
	elsewhereEdits(t, dir)
	got := snap(t, dir, s, byName(opts, base.Root, scope))
	if got.Root != want.Root {
		diffRoots(t, s, got.Root, want.Root)
		t.Fatalf("by name root %s, full walk %s", got.Root.Short(), want.Root.Short())
	}
	if !reflect.DeepEqual(got.Skipped, want.Skipped) {
		t.Errorf("skipped: by name %+v\nfull walk %+v", got.Skipped, want.Skipped)
	}
	if !reflect.DeepEqual(problemPaths(got), problemPaths(want)) {
		t.Errorf("problems: by name %v, full walk %v", problemPaths(got), problemPaths(want))
	}
}

// What a capture by name must read beyond the names (TestNamesCapture).
const (
	readNames = iota
	readDir
	readAll
)

// TestNamesReadsNamesOnly: a capture by name lists no directory it
// reads by name whose record's listing still holds, reads none of their
// unnamed files, leaves out a
// change to one of them, and writes no stat cache record for them (a
// record would claim names it did not read).
func TestNamesReadsNamesOnly(t *testing.T) {
	dir := namesTree(t)
	b := cas.NewMemory()
	s := newStoreOn(t, b)
	cache := NewStatCache(b)
	opts := Options{SizeLimit: 100, Cache: cache}
	ageTree(t, dir)
	time.Sleep(settle)
	base := snap(t, dir, s, opts)
	write(t, dir, "d/f1.txt", "turn")
	write(t, dir, "d/f2.txt", "beside")
	records := map[string][]byte{}
	for _, k := range cacheKeys(t, b) {
		v, err := b.Get(t.Context(), []byte(k))
		if err != nil {
			t.Fatal(err)
		}
		records[k] = v
	}
	var listed int
	testHookGetdents = func(int) { listed++ }
	defer func() { testHookGetdents = nil }()
	got := snap(t, dir, s, byName(opts, base.Root, []string{"d/f1.txt"}))
	testHookGetdents = nil
	if listed != 0 {
		t.Errorf("listed %d directories, want none (the records' listings of the top and d/ still hold)", listed)
	}
	// Read: d/f1.txt; .gitignore and the rest trusted from the cache.
	if got.Stats.HashedFiles != 1 {
		t.Errorf("hashed %d files, want 1 (d/f1.txt)", got.Stats.HashedFiles)
	}
	if got.Stats.DirsRead != 2 {
		t.Errorf("read %d directories, want 2 (the top and d/)", got.Stats.DirsRead)
	}
	m := flatten(t, s, got.Root)
	if h := m["d/f2.txt"].Hash; h != flatten(t, s, base.Root)["d/f2.txt"].Hash {
		t.Error("a change to an unnamed file was seen")
	}
	if string(readContent(t, s, m["d/f1.txt"].Hash)) != "turn" {
		t.Error("the named file was not read")
	}
	for _, k := range cacheKeys(t, b) {
		v, err := b.Get(t.Context(), []byte(k))
		if err != nil {
			t.Fatal(err)
		}
		if string(v) != string(records[k]) {
			t.Errorf("record %q rewritten by a capture by name", k)
		}
	}
	// A full capture after it reads both changes.
	full := snap(t, dir, s, opts)
	fm := flatten(t, s, full.Root)
	if string(readContent(t, s, fm["d/f2.txt"].Hash)) != "beside" || string(readContent(t, s, fm["d/f1.txt"].Hash)) != "turn" {
		t.Error("a full capture after the capture by name missed a change")
	}
}

// TestNamesHardLinkBase: a directory whose tree in Base holds hard
// links is read whole (their group may have changed unseen).
func TestNamesHardLinkBase(t *testing.T) {
	dir := namesTree(t)
	hardlink(t, dir, "d/f5.txt", "d/f6.link")
	s := newStore(t)
	base := snap(t, dir, s, Options{})
	write(t, dir, "d/f7.txt", "beside")
	want := snap(t, dir, s, Options{})
	got := snap(t, dir, s, byName(Options{}, base.Root, []string{"d/f1.txt"}))
	if got.Root != want.Root {
		t.Errorf("by name root %s, full walk %s: d/ was not read whole", got.Root.Short(), want.Root.Short())
	}
}

// TestNamesUnsearchableEmpty: a directory read by name that cannot be
// searched is read as a listing reads it: empty, it is an empty
// directory, not an unreadable one.
func TestNamesUnsearchableEmpty(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root searches any directory")
	}
	dir := namesTree(t)
	s := newStore(t)
	base := snap(t, dir, s, Options{})
	removeAll(t, dir, "d")
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(filepath.Join(dir, "d"), 0o755)
	want := snap(t, dir, s, Options{Previous: base.Root})
	got := snap(t, dir, s, byName(Options{}, base.Root, []string{"d/f1.txt"}))
	if got.Root != want.Root || len(got.Stats.Problems) != len(want.Stats.Problems) {
		t.Errorf("by name root %s problems %v, full walk %s problems %v", got.Root.Short(), got.Stats.Problems, want.Root.Short(), want.Stats.Problems)
	}
}

// TestNamesRandom: on random trees, a capture by name of random paths
// after random edits at those paths and on the way to them gives the
// full walk's root, whatever else changed beside them afterwards.
// The fast tier runs 15 random trees, the slow tier 40.
func TestNamesRandom(t *testing.T) {
	t.Parallel()
	iters := 40
	if testtier.Short() {
		iters = 15
	}
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	pool := []string{"a", "b", "c", "d.txt", "e"}
	randPath := func() string {
		parts := make([]string, 1+rng.IntN(3))
		for i := range parts {
			parts[i] = pool[rng.IntN(len(pool))]
		}
		return strings.Join(parts, "/")
	}
	for iter := range iters {
		dir := t.TempDir()
		// makeDirs makes every directory above p one, replacing a file.
		makeDirs := func(p string) {
			for q := path.Dir(p); q != "."; q = path.Dir(q) {
				defer func(q string) {
					if fi, err := os.Lstat(abs(dir, q)); err == nil && !fi.IsDir() {
						removeAll(t, dir, q)
					}
					if err := os.Mkdir(abs(dir, q), 0o755); err != nil && !os.IsExist(err) {
						t.Fatal(err)
					}
				}(q)
			}
		}
		edit := func(p string) {
			makeDirs(p)
			switch rng.IntN(6) {
			case 0:
				removeAll(t, dir, p)
			case 1:
				removeAll(t, dir, p)
				symlink(t, dir, pool[rng.IntN(len(pool))], p)
			case 2:
				removeAll(t, dir, p)
				write(t, dir, p+"/"+pool[rng.IntN(len(pool))], fmt.Sprint(rng.IntN(3)))
			case 3:
				if fi, err := os.Lstat(abs(dir, p)); err == nil && fi.Mode().IsRegular() {
					chmod(t, dir, p, 0o600)
					return
				}
				fallthrough
			default:
				removeAll(t, dir, p)
				write(t, dir, p, fmt.Sprint(rng.IntN(3)))
			}
		}
		for range 25 {
			p := randPath()
			makeDirs(p)
			removeAll(t, dir, p)
			write(t, dir, p, fmt.Sprint(rng.IntN(3)))
		}
		s := newStore(t)
		opts := Options{Index: &GitIndexes{}}
		base := snap(t, dir, s, opts)
		var scope []string
		for range 1 + rng.IntN(4) {
			scope = append(scope, randPath())
		}
		onWay := map[string]bool{}
		for _, p := range scope {
			for q := path.Dir(p); q != "."; q = path.Dir(q) {
				onWay[q] = true
			}
		}
		// realDir: every directory above q is one, no symlink.
		realDir := func(q string) bool {
			for d := path.Dir(q); d != "."; d = path.Dir(d) {
				if fi, err := os.Lstat(abs(dir, d)); err != nil || !fi.IsDir() {
					return false
				}
			}
			return true
		}
		for _, p := range scope {
			// A path above another is edited as one on the way (a
			// turn that replaced it has every path below in its scope).
			if !onWay[p] && rng.IntN(5) > 0 {
				edit(p)
			}
		}
		// A directory on the way changes its own entry only: a
		// directory there now that was one in base holds base's
		// names beside the paths (a capture by name keeps them).
		way := sortedKeys(onWay)
		slices.Reverse(way) // below first: none is reached through a symlink
		for _, q := range way {
			if !realDir(q) {
				continue
			}
			switch rng.IntN(12) {
			case 0:
				removeAll(t, dir, q)
			case 1:
				removeAll(t, dir, q)
				write(t, dir, q, "a file now")
			case 2:
				removeAll(t, dir, q)
				symlink(t, dir, "a", q)
			case 3:
				if fi, err := os.Lstat(abs(dir, q)); err == nil && fi.IsDir() {
					chmod(t, dir, q, 0o700)
				}
			}
		}
		// Beside: neither a path nor above one nor below one, in a
		// directory that is there, and was in base (one new is read
		// whole).
		inBase := flatten(t, s, base.Root)
		besideOf := func() (string, bool) {
			q := randPath()
			beside := !onWay[q]
			for _, p := range scope {
				beside = beside && q != p && !strings.HasPrefix(q, p+"/")
			}
			if d := path.Dir(q); d != "." && inBase[d].Kind != manifest.KindDir {
				return "", false
			}
			return q, beside && realDir(q) // never through a symlink
		}
		// Names made or deleted beside, in a directory read by name:
		// its listing shows them, as a full walk's does.
		for range 3 {
			q, ok := besideOf()
			if d := path.Dir(q); !ok || d != "." && !onWay[d] {
				continue
			}
			if _, err := os.Lstat(abs(dir, q)); err == nil {
				removeAll(t, dir, q)
				continue
			}
			if _, ok := inBase[q]; !ok { // a name base had is base's
				write(t, dir, q, "beside, new")
			}
		}
		full := opts
		full.Previous = base.Root
		want := snap(t, dir, s, full)
		// Files of base changed in place beside: not read.
		for range 6 {
			q, ok := besideOf()
			if !ok {
				continue
			}
			if fi, err := os.Lstat(abs(dir, q)); err == nil && fi.Mode().IsRegular() && inBase[q].Kind == manifest.KindFile {
				removeAll(t, dir, q)
				write(t, dir, q, "beside")
			}
		}
		got := snap(t, dir, s, byName(opts, base.Root, scope))
		if got.Root != want.Root {
			diffRoots(t, s, got.Root, want.Root)
			t.Fatalf("iteration %d, scope %q: by name root %s, full walk %s", iter, scope, got.Root.Short(), want.Root.Short())
		}
	}
}

// TestNamesInvalid: a name that is not one path component ("..", a
// slash, NUL, "") makes the directory read whole: nothing outside it is
// ever lstat'ed.
func TestNamesInvalid(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"..", ".", "sub/g.txt", "", "a\x00b"} {
		dir := namesTree(t)
		s := newStore(t)
		base := snap(t, dir, s, Options{})
		write(t, dir, "d/f7.txt", "beside")
		want := snap(t, dir, s, Options{Previous: base.Root})
		opts := byName(Options{}, base.Root, []string{"d/f1.txt"})
		opts.Names = func(rel string) ([]string, bool) {
			if rel == "d" {
				return []string{bad, "f1.txt"}, true
			}
			return []string{"d"}, true
		}
		if got := snap(t, dir, s, opts); got.Root != want.Root {
			t.Errorf("name %q: by name root %s, full walk %s: d/ was not read whole", bad, got.Root.Short(), want.Root.Short())
		}
	}
}

// diffRoots reports each path where the capture by name got and the
// full walk want differ.
func diffRoots(t *testing.T, s *cas.Store, got, want cas.Hash) {
	t.Helper()
	g, w := flatten(t, s, got), flatten(t, s, want)
	for _, p := range sortedKeys(w) {
		if !reflect.DeepEqual(g[p], w[p]) {
			t.Errorf("%s: by name %+v, full walk %+v", p, g[p], w[p])
		}
	}
	for _, p := range sortedKeys(g) {
		if _, ok := w[p]; !ok {
			t.Errorf("%s: by name %+v, full walk none", p, g[p])
		}
	}
}
