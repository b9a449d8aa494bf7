package walker

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
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

// TestFreeListBounded: a class keeps at most maxFree arrays; the rest
// are left to the collector with what they refer to.
func TestFreeListBounded(t *testing.T) {
	var l freeList[string]
	for range maxFree + 100 {
		l.put(make([]string, 1, 16))
	}
	if n := len(l.free[4]); n != maxFree {
		t.Fatalf("class 4 holds %d arrays after %d puts, want %d", n, maxFree+100, maxFree)
	}
	for range maxFree {
		if a := l.get(16); cap(a) != 16 {
			t.Fatalf("get(16): cap %d, want a kept array of 16", cap(a))
		}
	}
	if n := len(l.free[4]); n != 0 {
		t.Fatalf("class 4 holds %d arrays after as many gets, want 0", n)
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
