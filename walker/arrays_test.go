package walker

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMain runs every test of the package with checkArrays: an array
// given back to a capture's lists twice fails the run, and one used
// after it was given back reads zeros (a wrong tree). Benchmarks run
// without it.
func TestMain(m *testing.M) {
	flag.Parse()
	checkArrays = flag.Lookup("test.bench").Value.String() == ""
	var mu sync.Mutex
	var misuse []string
	testHookArrayMisuse = func(msg string) {
		mu.Lock()
		misuse = append(misuse, msg)
		mu.Unlock()
	}
	code := m.Run()
	if len(misuse) > 0 {
		fmt.Fprintf(os.Stderr, "arrays misused %d times, first: %s\n", len(misuse), strings.Join(misuse[:min(3, len(misuse))], "; "))
		code = 1
	}
	os.Exit(code)
}

// hookArrayMisuse collects the misuses checkArrays reports until the
// test ends.
func hookArrayMisuse(t *testing.T) func() []string {
	var mu sync.Mutex
	var got []string
	old := testHookArrayMisuse
	testHookArrayMisuse = func(msg string) {
		mu.Lock()
		got = append(got, msg)
		mu.Unlock()
	}
	t.Cleanup(func() { testHookArrayMisuse = old })
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}

func TestFreeList(t *testing.T) {
	misuse := hookArrayMisuse(t)
	var l freeList[int]
	a := l.get(5)
	if len(a) != 0 || cap(a) != 8 {
		t.Fatalf("get(5): len %d cap %d, want 0 and 8", len(a), cap(a))
	}
	a = append(a, 1, 2, 3)
	l.put(a)
	if a[:3][0] != 0 {
		t.Error("put did not zero the array (checkArrays)")
	}
	if b := l.get(7); cap(b) != 8 || &b[:1][0] != &a[:1][0] {
		t.Errorf("get(7) after put: cap %d, not the array put", cap(b))
	}
	l.put(a)
	l.put(a)
	if got := misuse(); len(got) != 1 {
		t.Errorf("an array put twice: %d misuses reported, want 1", len(got))
	}
	if b := l.get(3); cap(b) != 8 {
		t.Errorf("get(3) with an array of 8 free: cap %d, want it (one class up)", cap(b))
	}
	if b := l.get(2); cap(b) != 2 {
		t.Errorf("get(2) with an array of 8 free: cap %d, want a new one of 2", cap(b))
	}
	var nilList *freeList[int]
	if b := nilList.get(5); cap(b) != 5 {
		t.Errorf("nil list: get(5) cap %d, want 5", cap(b))
	}
	nilList.put(make([]int, 3)) // nothing kept, nothing fails
	huge := make([]byte, 0, maxArray*2)
	var lb freeList[byte]
	lb.put(huge)
	if b := lb.get(maxArray * 2); cap(b) == cap(huge) && &b[:1][0] == &huge[:1][0] {
		t.Error("an array over maxArray was kept")
	}
}

// TestCaptureArraysReused: captures with the stat cache of a tree whose
// directories differ in size, unchanged and then changed in large and
// small directories, give the trees of a full walk (checkArrays zeroes
// an array given back, so a directory still using one would differ).
func TestCaptureArraysReused(t *testing.T) {
	dir := t.TempDir()
	genShapedTree(t, dir)
	ageTree(t, dir)
	time.Sleep(settle)
	s := newStore(t)
	cache := NewStatCache(s.Backend())
	r1 := snap(t, dir, s, Options{Cache: cache})
	r2 := snap(t, dir, s, Options{Cache: cache, Previous: r1.Root})
	if r2.Root != r1.Root || r2.Stats.HashedFiles != 0 {
		t.Fatalf("no change: root %s (want %s), %d files read", r2.Root.Short(), r1.Root.Short(), r2.Stats.HashedFiles)
	}
	sameSnapshot(t, "no change", flatten(t, s, r2.Root), fullWalk(t, dir))
	// Changes in the largest directory and small ones, new names in
	// some: their records are rewritten, their listings read again.
	dirs := map[string]string{} // by name
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			dirs[d.Name()] = p
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"d0007/f000.go", "d0007/new.go", "d0137/f003.go", "d0001/f000.go", "d0500/new/x.go"} {
		d, name, _ := strings.Cut(p, "/")
		p := filepath.Join(dirs[d], filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("changed "+p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r3 := snap(t, dir, s, Options{Cache: cache, Previous: r2.Root})
	if r3.Stats.HashedFiles != 5 {
		t.Errorf("changed: %d files read, want 5", r3.Stats.HashedFiles)
	}
	sameSnapshot(t, "changed", flatten(t, s, r3.Root), fullWalk(t, dir))
	time.Sleep(settle)
	r4 := snap(t, dir, s, Options{Cache: cache, Previous: r3.Root})
	sameSnapshot(t, "changed, then none", flatten(t, s, r4.Root), fullWalk(t, dir))
}
