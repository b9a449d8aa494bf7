//go:build linux

package watch

import (
	"fmt"
	"testing"
)

// A write to a marker whose content decides (.yarn-integrity, ...) that
// leaves its verdict as it was marks its directory alone, not the whole
// tree below it (a rescan); one that flips the verdict rescans.
func TestMarkerWriteRescansOnFlip(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 20; i++ {
		put(t, dir, fmt.Sprintf("deps/d%02d/f.txt", i), "f")
	}
	put(t, dir, "deps/.yarn-integrity", "mine\n")
	w := startWatcher(t, dir, Options{}, nil)
	precise(t, w)
	deep := func(c Changes) bool { return c.Full || c.Dirty()("deps/d07") }

	// The first write is a flip from unknown: it may rescan once.
	put(t, dir, "deps/.yarn-integrity", "still mine\n")
	precise(t, w)
	for i := 0; i < 3; i++ {
		put(t, dir, "deps/.yarn-integrity", fmt.Sprintf("mine, take %d\n", i))
		if c := precise(t, w); deep(c) || !c.Dirty()("deps") {
			t.Fatalf("write %d that keeps the verdict: full %v, deps dirty %v, deps/d07 dirty %v", i, c.Full, c.Dirty()("deps"), c.Dirty()("deps/d07"))
		}
	}
	// Now yarn writes it: deps becomes generated, and is rescanned.
	put(t, dir, "deps/.yarn-integrity", "{\n  \"systemParams\": \"linux-x64-115\"\n}\n")
	if c := precise(t, w); !c.Dirty()("deps") {
		t.Fatalf("the write that makes deps generated did not mark it: %+v", c)
	}
	if w.tree.find("deps/d07") != nil {
		t.Fatal("deps/d07 is still watched once deps is generated")
	}
}
