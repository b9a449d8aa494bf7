//go:build unix

package walker

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// TestIgnorerListed: an Ignorer told every directory's listing (top
// down, as the watcher lists them) ignores exactly what a capture
// leaves out, reading only the ignore files the listings show as
// regular files; a listing is what it trusts (one that omits an ignore
// file leaves that file's rules out) until Forget, and a directory
// already known is not reloaded by a later listing.
func TestIgnorerListed(t *testing.T) {
	dir := t.TempDir()
	build(t, dir, []node{
		fileNode(".gitignore", 0o644, "*.log\n/out/\n!keep.log\n"),
		fileNode("a.log", 0o644, ""),
		fileNode("keep.log", 0o644, ""),
		fileNode("out/x", 0o644, ""),
		fileNode("src/out/y", 0o644, ""),
		fileNode("src/.ignore", 0o644, "gen/\n*.tmp\n"),
		fileNode("src/gen/z", 0o644, ""),
		fileNode("src/a.tmp", 0o644, ""),
		fileNode("src/deep/gen/w", 0o644, ""),
		fileNode("src/deep/.turnbackignore", 0o644, "!*.tmp\n"),
		fileNode("src/deep/b.tmp", 0o644, ""),
		fileNode("odd/.gitignore/inner", 0o644, "*\n"), // a directory named .gitignore: no rules
		fileNode("odd/f.log", 0o644, ""),
		fileNode("node_modules/m/m.js", 0o644, ""),
		fileNode(".git/HEAD", 0o644, ""),
	})
	s := newStore(t)
	captured := flatten(t, s, snap(t, dir, s, Options{}).Root)
	ig := NewIgnorer(openRoot(t, dir))
	listed := func(rel string) {
		ents, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		ig.Listed(rel, func(name string) bool {
			i := sort.Search(len(ents), func(i int) bool { return ents[i].Name() >= name })
			return i < len(ents) && ents[i].Name() == name && ents[i].Type().IsRegular()
		})
	}
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			listed("")
			return nil
		}
		_, in := captured[rel]
		if got := ig.Ignored(rel, d.IsDir()); got == in {
			t.Errorf("Ignored(%q) = %v, but captured = %v", rel, got, in)
		}
		n++
		if d.IsDir() && !ig.Ignored(rel, true) {
			listed(rel)
		}
		return nil
	})
	if n < 15 {
		t.Fatalf("only %d paths checked", n)
	}

	// The listing is trusted: src's listed without its .ignore.
	ig.Forget("src")
	ig.Listed("src", func(string) bool { return false })
	if ig.Ignored("src/a.tmp", false) || ig.Ignored("src/gen", true) {
		t.Fatal("rules read from an ignore file the listing did not show")
	}
	// Known: a later listing changes nothing until Forget.
	ig.Listed("src", func(name string) bool { return name == ".ignore" })
	if ig.Ignored("src/a.tmp", false) {
		t.Fatal("a known directory was reloaded by Listed")
	}
	ig.Forget("src")
	if !ig.Ignored("src/a.tmp", false) || !ig.Ignored("src/gen", true) {
		t.Fatal("after Forget the rules were not read again")
	}
}
