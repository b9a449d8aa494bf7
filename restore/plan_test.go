package restore

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/manifest/treetest"
)

func TestComparePaths(t *testing.T) {
	in := []string{"a.b", "a/b/c", "b", "a", "a/b", "a-b", "a/c", "a/b.c", "A"}
	want := []string{"A", "a", "a/b", "a/b/c", "a/b.c", "a/c", "a-b", "a.b", "b"}
	as := make([]Action, len(in))
	for i, p := range in {
		as[i].Path = p
	}
	sortActions(as)
	var got []string
	for _, a := range as {
		got = append(got, a.Path)
	}
	if !eqStrings(got, want) {
		t.Errorf("sorted = %q, want %q", got, want)
	}
}

func TestNewPlanRejectsBadPaths(t *testing.T) {
	e := newEnv(t)
	f := e.entry("x", file("x", 0o644))
	for _, p := range []string{"", ".", "..", "../x", "a/../b", "a/..", "./a", "a/./b", "/abs", "/", "a//b",
		"a/", "x\x00y", "a/b\x00", strings.Repeat("n", 256), "ok/" + strings.Repeat("n", 256)} {
		t.Run(fmt.Sprintf("%q", p), func(t *testing.T) {
			as := []Action{{Path: "fine", New: f}, {Path: p, New: f}}
			p2, err := NewPlan(context.Background(), e.root(), as)
			if err == nil {
				t.Fatalf("NewPlan accepted %q: %+v", p, p2)
			}
		})
	}
}

func TestNewPlanRejectsDuplicates(t *testing.T) {
	e := newEnv(t)
	f := e.entry("x", file("x", 0o644))
	d := e.entry("a", dir(0o755))
	for _, as := range [][]Action{
		{{Path: "x", New: f}, {Path: "x", Old: f}},
		{{Path: "a", New: d}, {Path: "a/x", New: f}, {Path: "b", New: f}, {Path: "a", New: d}},
	} {
		if _, err := NewPlan(context.Background(), e.root(), as); err == nil || !strings.Contains(err.Error(), "twice") {
			t.Errorf("NewPlan(%d actions with a duplicate) = %v", len(as), err)
		}
	}
}

func TestNewPlanCancelled(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewPlan(ctx, e.root(), []Action{{Path: "x", New: e.entry("x", file("x", 0o644))}}); err == nil {
		t.Error("NewPlan with a cancelled context succeeded")
	}
}

func TestNewPlanBlockedAndKept(t *testing.T) {
	uncapturedFile := func(p string) *manifest.Entry {
		_, name := manifest.SplitPath(p)
		return &manifest.Entry{Name: name, Kind: manifest.KindFile, Mode: 0o644, Size: 20 << 20, Uncaptured: true}
	}
	uncapturedDir := func(p string) *manifest.Entry {
		_, name := manifest.SplitPath(p)
		return &manifest.Entry{Name: name, Kind: manifest.KindDir, Mode: 0o755, Uncaptured: true, Files: 500}
	}
	type mk func(e *env) []Action
	cases := []struct {
		name        string
		disk        tree
		actions     mk
		wantActions []string
		wantBlocked map[string]string // path -> part of the reason
		wantKept    map[string]string
	}{
		{
			name: "new content never captured",
			disk: tree{"big": file("small now", 0o644)},
			actions: func(e *env) []Action {
				return []Action{
					{Path: "big", Old: e.entry("big", file("small now", 0o644)), New: uncapturedFile("big")},
					{Path: "huge", New: uncapturedFile("huge")},
					{Path: "ok", New: e.entry("ok", file("ok", 0o644))},
				}
			},
			wantActions: []string{"ok"},
			wantBlocked: map[string]string{"big": "never captured", "huge": "never captured"},
		},
		{
			name: "uncaptured old dir",
			disk: tree{"nm": dir(0o755), "nm/f": file("f", 0o644)},
			actions: func(e *env) []Action {
				return []Action{
					{Path: "nm", Old: uncapturedDir("nm")},
					{Path: "nm2", Old: uncapturedDir("nm2"), New: e.entry("nm2", file("f", 0o644))},
				}
			},
			wantBlocked: map[string]string{"nm": "uncaptured directory", "nm2": "uncaptured directory"},
		},
		{
			name: "an unknown file is in the way of a create",
			disk: tree{"x.log": file("ignored", 0o644), "node_modules": dir(0o755), "lnk": link("nowhere"), "d": dir(0o755)},
			actions: func(e *env) []Action {
				return []Action{
					{Path: "d", New: e.entry("d", dir(0o755))}, // an existing dir is merged into
					{Path: "d/f", New: e.entry("d/f", file("f", 0o644))},
					{Path: "lnk", New: e.entry("lnk", link("nowhere"))},
					{Path: "node_modules", New: e.entry("node_modules", file("a file", 0o644))},
					{Path: "x.log", New: e.entry("x.log", file("restored", 0o644))},
				}
			},
			wantActions: []string{"d", "d/f"},
			wantBlocked: map[string]string{"lnk": "symlink", "node_modules": "directory", "x.log": "file"},
		},
		{
			name: "actions under a blocked parent",
			disk: tree{"p": file("ignored file where a dir comes", 0o644), "q": dir(0o755), "q/r": dir(0o755)},
			actions: func(e *env) []Action {
				return []Action{
					{Path: "p", New: e.entry("p", dir(0o755))},
					{Path: "p/a", New: e.entry("p/a", dir(0o755))},
					{Path: "p/a/f", New: e.entry("p/a/f", file("f", 0o644))},
					{Path: "p/l", New: e.entry("p/l", link("a"))},
					{Path: "pp", New: e.entry("pp", file("not below p", 0o644))},
					{Path: "q", Old: e.entry("q", dir(0o755)), New: e.entry("q", dir(0o700))},
					{Path: "q/r", Old: uncapturedDir("q/r"), New: e.entry("q/r", dir(0o755))},
					{Path: "q/r/s", New: e.entry("q/r/s", file("s", 0o644))},
				}
			},
			wantActions: []string{"pp", "q"},
			wantBlocked: map[string]string{"p": "file", "p/a": "parent", "p/a/f": "parent", "p/l": "parent",
				"q/r": "uncaptured", "q/r/s": "parent"},
		},
		{
			name: "dir removal with an extra file is kept",
			disk: tree{"d": dir(0o755), "d/f": file("f", 0o644), "d/s": dir(0o755), "d/s/g": file("g", 0o644),
				"d/s/.env": dir(0o755), "d/s/.env/secret": file("ignored", 0o600),
				"e": dir(0o755), "e/f": file("f", 0o644)},
			actions: func(e *env) []Action {
				return []Action{
					{Path: "d", Old: e.entry("d", dir(0o755))},
					{Path: "d/f", Old: e.entry("d/f", file("f", 0o644))},
					{Path: "d/s", Old: e.entry("d/s", dir(0o755))},
					{Path: "d/s/g", Old: e.entry("d/s/g", file("g", 0o644))},
					{Path: "e", Old: e.entry("e", dir(0o755))},
					{Path: "e/f", Old: e.entry("e/f", file("f", 0o644))},
				}
			},
			wantActions: []string{"d/f", "d/s/g", "e", "e/f"},
			wantKept:    map[string]string{"d": "d/s/.env", "d/s": "d/s/.env"},
		},
		{
			name: "dir to file flip with an extra file is blocked",
			disk: tree{"d": dir(0o755), "d/f": file("f", 0o644), "d/ignored": file("i", 0o644)},
			actions: func(e *env) []Action {
				return []Action{
					{Path: "d", Old: e.entry("d", dir(0o755)), New: e.entry("d", file("now a file", 0o644))},
					{Path: "d/f", Old: e.entry("d/f", file("f", 0o644))},
				}
			},
			wantBlocked: map[string]string{"d": "d/ignored", "d/f": "parent"},
		},
		{
			name: "dir to symlink flip with an extra dir is blocked",
			disk: tree{"d": dir(0o755), "d/build": dir(0o755)},
			actions: func(e *env) []Action {
				return []Action{
					{Path: "d", Old: e.entry("d", dir(0o755)), New: e.entry("d", link("elsewhere"))},
				}
			},
			wantBlocked: map[string]string{"d": "d/build"},
		},
		{
			name: "uncaptured old file may be replaced",
			disk: tree{"big": file("big file", 0o644)},
			actions: func(e *env) []Action {
				return []Action{{Path: "big", Old: uncapturedFile("big"), New: e.entry("big", file("small", 0o644))}}
			},
			wantActions: []string{"big"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			build(t, e.dir, tc.disk)
			p := e.plan(tc.actions(e))
			var got []string
			for _, a := range p.Actions {
				got = append(got, a.Path)
			}
			if !eqStrings(got, tc.wantActions) {
				t.Errorf("Actions = %q, want %q", got, tc.wantActions)
			}
			checkSkipped(t, "Blocked", p.Blocked, tc.wantBlocked)
			checkSkipped(t, "Kept", p.Kept, tc.wantKept)
			// Applying what is left of the plan works and leaves the
			// blocked and kept paths alone.
			before := state(t, e.dir)
			if _, err := Apply(context.Background(), e.root(), p, e.opts()); err != nil {
				t.Fatalf("Apply: %v", err)
			}
			after := state(t, e.dir)
			for path := range tc.wantBlocked {
				if before[path] != after[path] {
					t.Errorf("blocked %s changed: %v -> %v", path, before[path], after[path])
				}
			}
			for path := range tc.wantKept {
				if before[path] != after[path] {
					t.Errorf("kept %s changed: %v -> %v", path, before[path], after[path])
				}
			}
			for path, n := range before {
				if n.Kind == treetest.KindFile && strings.Contains(n.Data, "ignored") && after[path] != n {
					t.Errorf("ignored file %s changed: %v", path, after[path])
				}
			}
			checkClean(t, e)
		})
	}
}

func checkSkipped(t *testing.T, what string, got []Skipped, want map[string]string) {
	t.Helper()
	seen := map[string]bool{}
	for _, s := range got {
		if seen[s.Path] {
			t.Errorf("%s lists %s twice", what, s.Path)
		}
		seen[s.Path] = true
		w, ok := want[s.Path]
		if !ok {
			t.Errorf("%s: unexpected %s (%s)", what, s.Path, s.Reason)
			continue
		}
		if !strings.Contains(s.Reason, w) {
			t.Errorf("%s %s: reason %q does not mention %q", what, s.Path, s.Reason, w)
		}
	}
	for p := range want {
		if !seen[p] {
			t.Errorf("%s misses %s", what, p)
		}
	}
}

// TestNewPlanStrangerInLargeTree: the extra file that blocks a directory
// flip sits deep in a tree of more directories than the plan keeps open
// at once.
func TestNewPlanStrangerInLargeTree(t *testing.T) {
	for _, n := range []int{10, maxOpenDirs + 20} {
		t.Run(fmt.Sprint(n, " subdirs"), func(t *testing.T) {
			e := newEnv(t)
			old := tree{"big": dir(0o755)}
			for i := 0; i < n; i++ {
				p := fmt.Sprintf("big/s%03d", i)
				old[p] = dir(0o755)
				old[p+"/f"] = file("f", 0o644)
			}
			build(t, e.dir, old)
			last := fmt.Sprintf("big/s%03d/ignored.log", n-1)
			build(t, e.dir, tree{last: file("ignored", 0o644)})
			new := tree{"big": file("now a file", 0o644)}
			p := e.plan(e.actions(old, new))
			if len(p.Blocked) == 0 || p.Blocked[0].Path != "big" {
				t.Errorf("the flip of big is not blocked (blocked %d, first actions %v)", len(p.Blocked), firstPaths(p.Actions, 3))
				o := e.opts()
				_, err := Apply(context.Background(), e.root(), p, o)
				t.Logf("Apply: %v; journal left: %v", err, journalExists(t, e))
				if journalExists(t, e) {
					_, err := Recover(context.Background(), e.root(), e.opts())
					t.Logf("Recover: %v", err)
				}
				return
			}
			for _, b := range p.Blocked {
				if b.Path == "big" && !strings.Contains(b.Reason, last) {
					t.Errorf("reason %q does not name %s", b.Reason, last)
				}
			}
			if len(p.Actions) != 0 {
				t.Errorf("actions left: %v", firstPaths(p.Actions, 5))
			}
		})
	}
}

func firstPaths(as []Action, n int) []string {
	var out []string
	for i := 0; i < len(as) && i < n; i++ {
		out = append(out, as[i].Path)
	}
	return out
}
