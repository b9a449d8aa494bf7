//go:build linux && (amd64 || arm64)

package walker

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/testtier"
)

// TestNamesRandomKindChanges: a capture reading d/ by name for d/a
// equals a full walk after random edits beside it that a listing must
// show: names made, deleted, or made again as another kind (files,
// directories, generated directories, symlinks, hard links), ignored
// ones among them, with and without records, and with a capture that
// records no state in between. Same-kind edits are left out: by name,
// they are taken from Base unread. TURNBACK_BYNAME_CASES and
// TURNBACK_BYNAME_SEED run more cases or replay one. The fast tier
// runs the first 12 cases, the slow tier 24: each case draws the kind
// of ten names, so each kind comes many times in 12.
func TestNamesRandomKindChanges(t *testing.T) {
	t.Parallel()
	n, seed := 24, int64(20261129)
	if testtier.Short() {
		n = 12
	}
	if v := os.Getenv("TURNBACK_BYNAME_CASES"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	if v := os.Getenv("TURNBACK_BYNAME_SEED"); v != "" {
		seed, _ = strconv.ParseInt(v, 10, 64)
		n = 1
	}
	for i := range n {
		s := seed + int64(i)
		t.Run(fmt.Sprint(s), func(t *testing.T) {
			t.Parallel()
			randomNamesCase(t, s)
		})
	}
}

// randomKinds are what a name beside d/a may be; "" is none.
var randomKinds = []string{"", "file", "dir", "gendir", "link", "hard"}

// kindClass is what a listing's type tells of kind k.
func kindClass(k string) string {
	switch k {
	case "gendir":
		return "dir"
	case "hard":
		return "file"
	}
	return k
}

func randomNamesCase(t *testing.T, seed int64) {
	r := rand.New(rand.NewSource(seed))
	dir := t.TempDir()
	nodes := []node{
		fileNode(".gitignore", 0o644, "*.log\nign*\n"),
		fileNode("d/.gitignore", 0o644, "*.tmp\n!keep.tmp\n"),
		fileNode("d/a", 0o644, "a"),
	}
	for i := range 30 {
		nodes = append(nodes, fileNode(fmt.Sprintf("d/f%d", i), 0o644, "f"))
	}
	build(t, dir, nodes)
	kinds := map[string]string{}
	put := func(name, kind string) {
		p := "d/" + name
		removeAll(t, dir, p)
		switch kind {
		case "file":
			write(t, dir, p, "file "+name)
		case "dir":
			write(t, dir, p+"/in", "in "+name)
		case "gendir":
			write(t, dir, p+"/CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n")
			write(t, dir, p+"/o", "o")
		case "link":
			symlink(t, dir, "a", p)
		case "hard":
			if err := os.Link(filepath.Join(dir, "d/f3"), filepath.Join(dir, p)); err != nil {
				t.Fatal(err)
			}
		}
		kinds[name] = kind
	}
	names := []string{"b", "c", "s1", "lnk", "skip.log", "ign", "ign2", "gen", "y.tmp", "keep.tmp"}
	for _, name := range names {
		put(name, randomKinds[r.Intn(len(randomKinds))])
	}
	b := cas.NewMemory()
	s := newStoreOn(t, b)
	opts := Options{SizeLimit: 100, LargeDirFiles: 50, Index: &GitIndexes{}}
	records := r.Intn(2) == 0
	if records {
		opts.Cache = NewStatCache(b)
		ageTree(t, dir)
		time.Sleep(settle)
	}
	base := snap(t, dir, s, opts)
	write(t, dir, "d/a", "the turn's")
	for _, name := range names {
		if r.Intn(3) != 0 {
			continue
		}
		k := randomKinds[r.Intn(len(randomKinds))]
		for kindClass(k) == kindClass(kinds[name]) {
			k = randomKinds[r.Intn(len(randomKinds))]
		}
		t.Logf("%s: %q now %q", name, kinds[name], k)
		put(name, k)
	}
	if records && r.Intn(2) == 0 {
		ageTree(t, dir)
		time.Sleep(settle)
		between := opts
		between.Index = &GitIndexes{} // its skipped names are no state's
		between.Previous = base.Root
		snap(t, dir, s, between) // writes records Base is not
		t.Log("a capture in between")
	}
	full := opts
	full.Cache, full.Index, full.Previous = nil, &GitIndexes{}, base.Root
	want := snap(t, dir, s, full)
	got := snap(t, dir, s, byName(opts, base.Root, []string{"d/a"}))
	if got.Root != want.Root {
		diffRoots(t, s, got.Root, want.Root)
		t.Errorf("by name root %s, full walk %s (records %v)", got.Root.Short(), want.Root.Short(), records)
	}
	// The kind of a name skipped as both kinds is not compared: a
	// record's listing carries no kinds, and Base's is taken.
	paths := func(res *Result) string {
		var out []string
		for _, ig := range res.Skipped {
			out = append(out, ig.Path)
		}
		return fmt.Sprint(out)
	}
	if g, w := paths(got), paths(want); g != w {
		t.Errorf("skipped: by name %s, full walk %s", g, w)
	}
}
