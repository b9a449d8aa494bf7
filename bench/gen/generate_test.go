//go:build linux

package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/turnback/turnback/bench/truth"
)

// entries lists a ground truth's paths with what is compared of them
// (not the stat data of the disk they were written to).
func entries(ref *truth.State) []string {
	var out []string
	for i := range ref.Ents {
		e := &ref.Ents[i]
		out = append(out, fmt.Sprintf("%q %d %o %d %x %q", ref.Name(e), e.Kind, e.Perm, e.Size, e.Sum, ref.Link(e)))
	}
	return out
}

// TestGenerateDeterministic writes the same layout twice and another
// seed once: the same seed gives byte-identical trees (the same paths,
// kinds, modes, sizes, contents and link targets), another seed another
// tree, and each tree verifies against its ground truth.
func TestGenerateDeterministic(t *testing.T) {
	gen := func(seed uint64) (string, *truth.State) {
		root := filepath.Join(t.TempDir(), "tree")
		ref, err := plan(300, seed).Generate(root, 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		if files, _, links, _ := ref.Stats(); files+links != 300 {
			t.Fatalf("seed %d: %d files and %d symlinks, want 300 in all", seed, files, links)
		}
		v, err := truth.Verify(root, ref, true)
		if err != nil || v.Count != 0 {
			t.Fatalf("seed %d: fresh tree does not verify: %v %+v", seed, err, v)
		}
		return root, ref
	}
	_, a := gen(3)
	_, b := gen(3)
	_, c := gen(4)
	if !slices.Equal(entries(a), entries(b)) {
		t.Error("seed 3 twice: the trees differ")
	}
	if slices.Equal(entries(a), entries(c)) {
		t.Error("seeds 3 and 4: the same tree")
	}
}

// TestContentRepairs: Content gives a generated file's bytes, so a tree
// damaged by a failed engine is repaired from its layout.
func TestContentRepairs(t *testing.T) {
	root := filepath.Join(t.TempDir(), "tree")
	L := plan(300, 3)
	ref, err := L.Generate(root, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := L.Content("no/such/file"); err == nil {
		t.Error("Content of a path not generated: no error")
	}
	var victim string
	for _, s := range L.specs {
		if s.kind == gText && s.size > 100 {
			victim = s.path
			break
		}
	}
	abs := filepath.Join(root, filepath.FromSlash(victim))
	if err := os.WriteFile(abs, []byte("damaged"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := truth.Repair(root, ref, L); err != nil {
		t.Fatal(err)
	}
	if v, err := truth.Verify(root, ref, true); err != nil || v.Count != 0 {
		t.Fatalf("after repair: %v %+v", err, v)
	}
}

// TestTurn plans the turn twice with the same seed (the same turn) and
// once with another; applying it changes exactly its paths, and Reset
// puts the tree back.
func TestTurn(t *testing.T) {
	root := filepath.Join(t.TempDir(), "tree")
	ref, err := plan(300, 3).Generate(root, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for i := range ref.Ents {
		all = append(all, ref.Name(&ref.Ents[i]))
	}
	cands := Candidates(ref, all)
	for _, c := range cands {
		if strings.Contains(c, "node_modules/") || strings.HasPrefix(filepath.Base(c), ".") {
			t.Errorf("candidate %s: turnback does not capture it", c)
		}
	}
	tu, err := PlanTurn("t", root, ref, cands, 1)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := PlanTurn("t", root, ref, cands, 1)
	other, _ := PlanTurn("t", root, ref, cands, 2)
	if !slices.Equal(tu.Modified, again.Modified) || !slices.Equal(tu.Created, again.Created) || !slices.Equal(tu.Deleted, again.Deleted) {
		t.Error("the same turn seed gave two turns")
	}
	if slices.Equal(tu.Modified, other.Modified) {
		t.Error("turn seeds 1 and 2 gave the same turn")
	}
	if len(tu.Modified) != TurnModified || len(tu.Created) != TurnCreated || len(tu.Deleted) != TurnDeleted {
		t.Fatalf("turn of %d/%d/%d paths", len(tu.Modified), len(tu.Created), len(tu.Deleted))
	}
	if err := tu.Apply(root); err != nil {
		t.Fatal(err)
	}
	v, err := truth.Verify(root, ref, true) // full: a rewrite may keep a coarse mtime
	if err != nil {
		t.Fatal(err)
	}
	if want := TurnModified + TurnCreated + TurnDeleted; v.Count != want {
		t.Errorf("after the turn %d paths differ, want %d: %v", v.Count, want, v.Mismatches)
	}
	if err := tu.Reset(root); err != nil {
		t.Fatal(err)
	}
	if v, err := truth.Verify(root, ref, true); err != nil || v.Count != 0 {
		t.Fatalf("after Reset: %v %+v", err, v)
	}
	if _, err := PlanTurn("t", root, ref, cands[:3], 1); err == nil {
		t.Error("a turn from 3 candidates: no error")
	}
}
