package diag

import (
	"os"
	"runtime"
	"runtime/debug"
)

// Memory settings of the turnback process (unless GOGC or GOMEMLIMIT
// set them): no garbage collection at all until the heap first reaches
// quietMax, then the usual pacing (GOGC=100) under a soft cap of
// softLimit, where the collector works harder instead of letting the heap
// double (captures allocate many short-lived buffers; memory use follows
// the tree's shape, not its bytes).
//
// Most commands allocate a few tens of MiB and exit: collecting them
// cost a no-change capture of an 11k-file tree about a tenth of its CPU.
// A command that allocates more runs as before once past quietMax.
const (
	quietMax  = 64 << 20
	softLimit = 256 << 20
)

// TuneGC sets the process's memory settings (see quietMax).
func TuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(quietMax)
	// The first collection (the heap reached quietMax) finds the
	// sentinel unreachable and runs its finalizer: usual pacing from
	// then on.
	s := &gcSentinel{}
	runtime.SetFinalizer(s, func(*gcSentinel) {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(softLimit)
	})
}

// gcSentinel is large enough not to share a tiny-allocator block (whose
// finalizer would wait for its neighbours).
type gcSentinel struct{ _ [32]byte }
