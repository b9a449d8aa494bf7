package treetest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ModeMask is the mode bits a Tree records: permissions plus setuid,
// setgid and sticky.
const ModeMask = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// Kind is what an entry is.
type Kind byte

// The kinds of entries.
const (
	KindFile    Kind = 'f'
	KindDir     Kind = 'd'
	KindSymlink Kind = 'l'
	KindOther   Kind = '?' // fifo, socket, device: Data holds its type
)

// Entry is one path of a Tree.
type Entry struct {
	Kind Kind
	Mode fs.FileMode // ModeMask bits; zero for symlinks
	Data string      // a file's content, a symlink's target, an other's type
}

// File, Dir and Symlink build entries for wanted trees.
func File(data string, mode fs.FileMode) Entry { return Entry{KindFile, mode & ModeMask, data} }

// Dir is a directory entry with the given mode bits.
func Dir(mode fs.FileMode) Entry { return Entry{Kind: KindDir, Mode: mode & ModeMask} }

// Symlink is a symlink entry pointing at target.
func Symlink(target string) Entry { return Entry{Kind: KindSymlink, Data: target} }

// String describes an entry in one short line, content abbreviated.
func (e Entry) String() string {
	switch e.Kind {
	case KindFile:
		return fmt.Sprintf("file %v %d bytes %q", e.Mode, len(e.Data), abbrev(e.Data))
	case KindDir:
		return fmt.Sprintf("dir %v", e.Mode)
	case KindSymlink:
		return fmt.Sprintf("symlink -> %q", e.Data)
	}
	return "other " + e.Data
}

func abbrev(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// Tree is a folder's content: slash path relative to the root -> entry.
type Tree map[string]Entry

// Paths returns the tree's paths sorted.
func (t Tree) Paths() []string {
	out := make([]string, 0, len(t))
	for p := range t {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Files returns path -> content for the regular files only.
func (t Tree) Files() map[string]string {
	out := map[string]string{}
	for p, e := range t {
		if e.Kind == KindFile {
			out[p] = e.Data
		}
	}
	return out
}

// Merge returns a copy of t with the entries of more added (or
// replaced); t is unchanged.
func (t Tree) Merge(more Tree) Tree {
	out := make(Tree, len(t)+len(more))
	for p, e := range t {
		out[p] = e
	}
	for p, e := range more {
		out[p] = e
	}
	return out
}

// String lists the tree, one entry a line, for failure messages.
func (t Tree) String() string {
	var b strings.Builder
	for _, p := range t.Paths() {
		fmt.Fprintf(&b, "%s: %v\n", p, t[p])
	}
	return b.String()
}

// Option changes what Read records.
type Option func(*options)

type options struct {
	skip     []string
	noModes  bool
	skipFunc func(rel string) bool
}

// Skip leaves out the given slash paths and everything below them (a
// store kept inside the work tree, say).
func Skip(paths ...string) Option {
	return func(o *options) { o.skip = append(o.skip, paths...) }
}

// SkipFunc leaves out every path (and, for a directory, everything below
// it) for which skip returns true.
func SkipFunc(skip func(rel string) bool) Option {
	return func(o *options) { o.skipFunc = skip }
}

// NoModes records every Mode as zero, for tests that compare content and
// shape only.
func NoModes() Option { return func(o *options) { o.noModes = true } }

// Read reads everything below root, never following symlinks.
func Read(root string, opts ...Option) (Tree, error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	t := Tree{}
	err := filepath.WalkDir(root, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("treetest: %w", err)
		}
		if name == root {
			return nil
		}
		rel, err := filepath.Rel(root, name)
		if err != nil {
			return fmt.Errorf("treetest: %w", err)
		}
		rel = filepath.ToSlash(rel)
		if o.skipped(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		e, err := readEntry(name)
		if err != nil {
			return fmt.Errorf("treetest: %s: %w", rel, err)
		}
		if o.noModes {
			e.Mode = 0
		}
		t[rel] = e
		return nil
	})
	return t, err
}

func (o *options) skipped(rel string) bool {
	for _, s := range o.skip {
		if rel == s || strings.HasPrefix(rel, s+"/") {
			return true
		}
	}
	return o.skipFunc != nil && o.skipFunc(rel)
}

func readEntry(name string) (Entry, error) {
	fi, err := os.Lstat(name)
	if err != nil {
		return Entry{}, err
	}
	switch m := fi.Mode(); {
	case m.IsDir():
		return Dir(m), nil
	case m&fs.ModeSymlink != 0:
		target, err := os.Readlink(name)
		return Symlink(target), err
	case m.IsRegular():
		data, err := os.ReadFile(name)
		return File(string(data), m), err
	default:
		return Entry{Kind: KindOther, Data: m.Type().String()}, nil
	}
}

// MustRead is Read that fails the test on error.
func MustRead(t testing.TB, root string, opts ...Option) Tree {
	t.Helper()
	tree, err := Read(root, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// Diff lists every difference between got and want, sorted by path:
// "missing P (want ...)", "unexpected P (...)" and "P: got ..., want ...".
// It is empty when the trees are equal.
func Diff(got, want Tree) []string {
	var out []string
	for _, p := range want.Paths() {
		g, ok := got[p]
		w := want[p]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("missing %s (want %v)", p, w))
		case g != w:
			out = append(out, fmt.Sprintf("%s: got %v, want %v", p, g, w))
		}
	}
	for _, p := range got.Paths() {
		if _, ok := want[p]; !ok {
			out = append(out, fmt.Sprintf("unexpected %s (%v)", p, got[p]))
		}
	}
	slices.Sort(out)
	return out
}

// Equal fails the test, saying what differs, when got is not want. what
// names the moment checked ("after undo").
func Equal(t testing.TB, what string, got, want Tree) {
	t.Helper()
	if d := diffHead(got, want, 20); d != nil {
		t.Fatalf("%s: the tree differs:\n%s", what, strings.Join(d, "\n"))
	}
}

// diffHead is Diff cut to its first n lines and a count of the rest;
// nil when the trees are equal.
func diffHead(got, want Tree, n int) []string {
	d := Diff(got, want)
	if len(d) > n {
		d = append(d[:n], fmt.Sprintf("... and %d more", len(d)-n))
	}
	return d
}

// Write creates tree below root: directories first (parents before
// children), then files and symlinks. Modes are applied after content,
// directories last, so a read-only directory can still be filled.
// KindOther entries are not supported.
func Write(root string, tree Tree) error {
	paths := tree.Paths()
	for _, p := range paths {
		if e := tree[p]; e.Kind == KindDir {
			if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(p)), 0o755); err != nil {
				return fmt.Errorf("treetest: %w", err)
			}
		}
	}
	for _, p := range paths {
		e, abs := tree[p], filepath.Join(root, filepath.FromSlash(p))
		var err error
		switch e.Kind {
		case KindDir:
			continue
		case KindFile:
			if err = os.MkdirAll(filepath.Dir(abs), 0o755); err == nil {
				err = os.WriteFile(abs, []byte(e.Data), 0o644)
			}
			if err == nil {
				err = os.Chmod(abs, e.Mode)
			}
		case KindSymlink:
			if err = os.MkdirAll(filepath.Dir(abs), 0o755); err == nil {
				err = os.Symlink(e.Data, abs)
			}
		default:
			err = fmt.Errorf("cannot write a %v", e)
		}
		if err != nil {
			return fmt.Errorf("treetest: %s: %w", p, err)
		}
	}
	for i := len(paths) - 1; i >= 0; i-- {
		if e := tree[paths[i]]; e.Kind == KindDir {
			if err := os.Chmod(filepath.Join(root, filepath.FromSlash(paths[i])), e.Mode); err != nil {
				return fmt.Errorf("treetest: %s: %w", paths[i], err)
			}
		}
	}
	return nil
}

// MustWrite is Write that fails the test on error.
func MustWrite(t testing.TB, root string, tree Tree) {
	t.Helper()
	if err := Write(root, tree); err != nil {
		t.Fatal(err)
	}
}

// Put writes one file below root, making its parents: a test's edit. A
// new file gets mode 0644, an existing one keeps its mode. rel is a
// slash path.
func Put(t testing.TB, root, rel, data string) {
	t.Helper()
	abs := filepath.Join(root, filepath.FromSlash(rel))
	err := os.MkdirAll(filepath.Dir(abs), 0o755)
	if err == nil {
		err = os.WriteFile(abs, []byte(data), 0o644)
	}
	if err != nil {
		t.Fatalf("treetest: %s: %v", rel, err)
	}
}

// PutAll is Put for each slash path and content of files.
func PutAll(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for rel, data := range files {
		Put(t, root, rel, data)
	}
}

// PutPath is Put for a file named by its whole path in the system's
// spelling.
func PutPath(t testing.TB, name, data string) {
	t.Helper()
	Put(t, filepath.Dir(name), filepath.ToSlash(filepath.Base(name)), data)
}
