package diag

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

var sink []byte

// TestTuneGC: no collection until the first one (which the soft cap
// quietMax brings), then the usual pacing under softLimit.
func TestTuneGC(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	oldPct, oldLimit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	defer func() { debug.SetGCPercent(oldPct); debug.SetMemoryLimit(oldLimit) }()
	TuneGC()
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Fatalf("GC percent after TuneGC: %d, want -1 (off)", p)
	}
	if l := debug.SetMemoryLimit(-1); l != quietMax {
		t.Fatalf("memory limit after TuneGC: %d, want %d", l, quietMax)
	}
	for range 3 * quietMax >> 20 {
		sink = make([]byte, 1<<20)
	}
	runtime.GC()
	deadline := time.Now().Add(5 * time.Second)
	for debug.SetMemoryLimit(-1) != softLimit && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if l := debug.SetMemoryLimit(-1); l != softLimit {
		t.Fatalf("memory limit after a collection: %d, want %d", l, softLimit)
	}
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("GC percent after a collection: %d, want 100", p)
	}
}

// TestTuneGCLeavesSettings: GOGC or GOMEMLIMIT in the environment leave
// the runtime as they set it.
func TestTuneGCLeavesSettings(t *testing.T) {
	t.Setenv("GOGC", "50")
	before := debug.SetGCPercent(77)
	defer debug.SetGCPercent(before)
	TuneGC()
	if p := debug.SetGCPercent(77); p != 77 {
		t.Errorf("TuneGC changed GC percent set by GOGC: %d", p)
	}
}
