package restore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest"
)

// TestNewPlanAfterKindChanges: plan 1 makes the file c/b a directory
// holding c/b/b; plan 2, made from the state plan 1 leaves, makes c a
// file. NewPlan of plan 2 on the disk before plan 1 fails (c/b is
// still a file there); NewPlanAfter sees c/b as plan 1 leaves it.
func TestNewPlanAfterKindChanges(t *testing.T) {
	e := newEnv(t)
	s0 := tree{"c": dir(0o755), "c/b": file("b", 0o644)}
	s1 := tree{"c": dir(0o755), "c/b": dir(0o755), "c/b/b": file("bb", 0o644)}
	s2 := tree{"c": file("c", 0o644)}
	build(t, e.dir, s0)
	p1 := e.plan(e.actions(s0, s1))
	p2, err := NewPlanAfter(context.Background(), e.root(), []*Plan{p1}, e.actions(s1, s2))
	if err != nil {
		t.Fatalf("NewPlanAfter: %v", err)
	}
	if got := planSummary(p2); got != "actions [c:file c/b:- c/b/b:-] kept [] blocked []" {
		t.Errorf("plan 2: %s", got)
	}
	checkTree(t, e.dir, s0)
}

// TestNewPlanAfterMatchesDisk: for random folders and three random
// steps, each step's NewPlanAfter the plans before equals NewPlan of
// that step on the disk the plans before really left. Files the trees
// do not know ("ignored") sit on the disk, so that directories are
// kept and paths blocked.
func TestNewPlanAfterMatchesDisk(t *testing.T) {
	n := 150
	if testtier.Short() {
		n = 50
	}
	for i := range n {
		seed := uint64(i)
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			e := newEnv(t)
			ctx := context.Background()
			state := randTree(rng)
			disk := state.With(nil)
			for _, p := range state.Paths() {
				if state[p] != dir(0o755) {
					continue
				}
				for _, name := range []string{"a", "z"} {
					q := manifest.JoinPath(p, name)
					if _, ok := state[q]; !ok && rng.IntN(4) == 0 {
						disk[q] = file("stranger", 0o644)
					}
				}
			}
			build(t, e.dir, disk)
			// The disk as it is before every step, for NewPlanAfter.
			first := tempDir(t)
			build(t, first, disk)
			firstRoot, err := os.OpenRoot(first)
			if err != nil {
				t.Fatal(err)
			}
			defer firstRoot.Close()
			var before []*Plan
			for step := range 3 {
				as := e.actions(state, randTree(rng))
				after, err := NewPlanAfter(ctx, firstRoot, before, as)
				if err != nil {
					t.Fatalf("step %d: NewPlanAfter: %v", step, err)
				}
				// e.dir: the disk as the plans before left it.
				real, err := NewPlan(ctx, e.root(), as)
				if err != nil {
					t.Fatalf("step %d: NewPlan: %v", step, err)
				}
				if got, want := planSummary(after), planSummary(real); got != want {
					t.Fatalf("step %d: NewPlanAfter %d plans:\n  %s\nNewPlan on the disk they left:\n  %s", step, len(before), got, want)
				}
				if _, err := Apply(ctx, e.root(), real, e.opts()); err != nil {
					t.Fatalf("step %d: Apply: %v", step, err)
				}
				before = append(before, real)
				state = predicted(state, real, e)
			}
		})
	}
}

// predicted is st with the actions of p applied, as a caller predicts
// the state a plan leaves (kept and blocked paths as they were).
func predicted(st tree, p *Plan, e *env) tree {
	out := st.With(nil)
	for _, a := range p.Actions {
		delete(out, a.Path)
		if a.New != nil {
			out[a.Path] = nodeOf(e, a.New)
		}
	}
	return out
}

// nodeOf is the test node of an entry e.entry made.
func nodeOf(e *env, me *manifest.Entry) node {
	switch me.Kind {
	case manifest.KindDir:
		return dir(0o755)
	case manifest.KindSymlink:
		return link(me.Target)
	}
	for _, data := range []string{"1", "2"} {
		if e.put(data) == me.Hash {
			return file(data, 0o644)
		}
	}
	e.t.Fatalf("unknown content %s", me.Hash)
	return node{}
}

// randTree is a random folder of names a and b, three levels deep.
func randTree(rng *rand.Rand) tree {
	out := tree{}
	var fill func(prefix string, depth int)
	fill = func(prefix string, depth int) {
		for _, name := range []string{"a", "b"} {
			p := manifest.JoinPath(prefix, name)
			switch k := rng.IntN(10); {
			case k < 3:
			case k < 6:
				out[p] = file(fmt.Sprint(1+rng.IntN(2)), 0o644)
			case k < 9 && depth < 3:
				out[p] = dir(0o755)
				fill(p, depth+1)
			default:
				out[p] = link("t")
			}
		}
	}
	fill("", 0)
	return out
}

// planSummary is a plan's paths, what it sets them to, and why it keeps
// or blocks a path.
func planSummary(p *Plan) string {
	var as, kept, blocked []string
	for _, a := range p.Actions {
		k := "-"
		if a.New != nil {
			k = a.New.Kind.String()
		}
		as = append(as, a.Path+":"+k)
	}
	for _, s := range p.Kept {
		kept = append(kept, s.Path+": "+s.Reason)
	}
	for _, s := range p.Blocked {
		blocked = append(blocked, s.Path+": "+s.Reason)
	}
	return fmt.Sprintf("actions %v kept %v blocked %v", as, kept, blocked)
}
