package gen

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/turnback/turnback/walker/ignore"
)

var (
	plansMu sync.Mutex
	plans   = map[[2]uint64]*Layout{}
)

// plan is Plan(n, seed), made once per test binary (a plan builds an
// 8 MiB corpus).
func plan(n int, seed uint64) *Layout {
	plansMu.Lock()
	defer plansMu.Unlock()
	k := [2]uint64{uint64(n), seed}
	if plans[k] == nil {
		plans[k] = Plan(n, seed)
	}
	return plans[k]
}

// fingerprint hashes a layout: every directory, every file's spec and,
// with content, its bytes.
func fingerprint(t *testing.T, L *Layout, content bool) string {
	t.Helper()
	h := sha256.New()
	for _, d := range L.dirs {
		fmt.Fprintf(h, "d %q\n", d)
	}
	for i := range L.specs {
		s := &L.specs[i]
		fmt.Fprintf(h, "f %q %d %o %d %x %q\n", s.path, s.kind, s.perm, s.size, s.seed, s.link)
		if content && s.kind != gSymlink {
			if err := L.content(s, h); err != nil {
				t.Fatal(err)
			}
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// TestPlanPinned pins the output of this generator Version: the
// fingerprints were taken from the generator before it was split into
// steps. A change here changes every cached tree: change Version too and
// update the fingerprints.
func TestPlanPinned(t *testing.T) {
	cases := []struct {
		n       int
		seed    uint64
		content bool
		want    string
	}{
		{300, 3, true, "08748635748ab581ed461e4704e455ed7a71c72e31ef81457c1510986df20e41"},
		{2500, 1, true, "e4f7f1c8368fb35662db323cd2528a6bb9676987fffe0361cdffa842f516e706"},
		{6000, 7, false, "6da72d0020327492ff8d6803a86ce83b91ea61dda662f4b9e072c5ea56243b5d"}, // one file over 10 MiB: specs only
	}
	if Version != "turnback-bench-synth/2" {
		t.Fatalf("Version is %s: update the fingerprints below", Version)
	}
	for _, tc := range cases {
		if got := fingerprint(t, plan(tc.n, tc.seed), tc.content); got != tc.want {
			t.Errorf("Plan(%d, %d): fingerprint %s, want %s", tc.n, tc.seed, got, tc.want)
		}
	}
}

// TestPlanShape checks what the generator promises for any size and
// seed: exactly n files and symlinks, node_modules a tenth, symlinks one
// per 2000, unique paths, every parent directory listed.
func TestPlanShape(t *testing.T) {
	for _, tc := range []struct {
		n    int
		seed uint64
	}{{300, 3}, {2500, 1}, {6000, 7}} {
		L := plan(tc.n, tc.seed)
		if len(L.specs) != tc.n {
			t.Errorf("Plan(%d): %d files", tc.n, len(L.specs))
		}
		dirs := map[string]bool{}
		for _, d := range L.dirs {
			dirs[d] = true
		}
		nm, links := 0, 0
		seen := map[string]bool{}
		for _, s := range L.specs {
			if seen[s.path] || dirs[s.path] {
				t.Errorf("Plan(%d): %s twice", tc.n, s.path)
			}
			seen[s.path] = true
			if d := parentDir(s.path); !dirs[d] {
				t.Errorf("Plan(%d): parent of %s not listed", tc.n, s.path)
			}
			if strings.Contains(s.path, "node_modules/") {
				nm++
			}
			if s.kind == gSymlink {
				links++
			}
		}
		if nm < tc.n/10 || links != tc.n/2000 {
			t.Errorf("Plan(%d): %d in node_modules (want at least %d), %d symlinks (want %d)", tc.n, nm, tc.n/10, links, tc.n/2000)
		}
		if !slices.IsSorted(L.dirs) {
			t.Errorf("Plan(%d): dirs not sorted", tc.n)
		}
	}
}

func parentDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// TestPlanSeeds: the same seed gives the same tree again, another seed
// another tree.
func TestPlanSeeds(t *testing.T) {
	a, b, c := fingerprint(t, plan(300, 3), true), fingerprint(t, Plan(300, 3), true), fingerprint(t, plan(300, 4), true)
	if a != b {
		t.Error("the same seed gave two layouts")
	}
	if a == c {
		t.Error("seeds 1 and 2 gave the same layout")
	}
}

// TestVocabAvoidsIgnoredNames: no generated name is a directory name
// turnback ignores (which would hide a whole generated directory from
// it). It fails when the ignore list gains a name the syllables can
// form: add it to reserved and change Version.
func TestVocabAvoidsIgnoredNames(t *testing.T) {
	for _, w := range vocab(newRNG(1), 20000) {
		if ignore.IsBuiltin(w, true) {
			t.Errorf("vocab made %q, a name turnback ignores", w)
		}
	}
	for _, n := range ignore.BuiltinDirs {
		if formable(n) && !reserved[n] {
			t.Errorf("%q can be formed from the syllables: add it to reserved (and change Version)", n)
		}
	}
}

// formable says whether w is one to three syllables.
func formable(w string) bool {
	var rec func(s string, k int) bool
	rec = func(s string, k int) bool {
		if s == "" {
			return k > 0
		}
		if k == 3 {
			return false
		}
		for _, sy := range syllables {
			if strings.HasPrefix(s, sy) && rec(s[len(sy):], k+1) {
				return true
			}
		}
		return false
	}
	return rec(w, 0)
}

// TestRNG pins splitmix64 and checks the ranges of its helpers.
func TestRNG(t *testing.T) {
	r := newRNG(0)
	if got := r.next(); got != 0xe220a8397b1dcdaf {
		t.Errorf("splitmix64(0) first value %#x", got)
	}
	r = newRNG(mix(42, 1))
	for i := 0; i < 1000; i++ {
		if n := r.intn(7); n < 0 || n >= 7 {
			t.Fatalf("intn(7) = %d", n)
		}
		if f := r.float(); f < 0 || f >= 1 {
			t.Fatalf("float() = %v", f)
		}
		if s := r.logUniform(100, 1000); s < 100 || s > 1000 {
			t.Fatalf("logUniform(100, 1000) = %d", s)
		}
	}
	if r.intn(0) != 0 {
		t.Error("intn(0) != 0")
	}
	if mix(1, 1) == mix(1, 2) || mix(1, 1) == mix(2, 1) {
		t.Error("mix does not separate streams")
	}
	b1, b2 := make([]byte, 13), make([]byte, 13)
	newRNG(5).fill(b1)
	newRNG(5).fill(b2)
	if string(b1) != string(b2) {
		t.Error("fill is not deterministic")
	}
}
