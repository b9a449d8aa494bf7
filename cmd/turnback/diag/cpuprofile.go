package diag

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
)

// StartCPUProfile writes a CPU profile of the whole command to path (the
// TURNBACK_CPUPROFILE variable, for "go tool pprof") and returns the
// function that finishes it. An empty path profiles nothing; a profile
// that cannot be started is reported on stderr and the command runs
// anyway.
func StartCPUProfile(path string, stderr io.Writer) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(stderr, "turnback: cpu profile: %v\n", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintf(stderr, "turnback: cpu profile %s: %v\n", path, err)
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(stderr, "turnback: cpu profile %s: %v\n", path, err)
		}
	}
}
