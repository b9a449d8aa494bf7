package testtier

import (
	"os"
	"testing"
)

// Env is the environment variable that turns the slow tier on.
const Env = "TURNBACK_TEST_SLOW"

// Enabled reports whether the slow tier runs: Env is set and not 0.
func Enabled() bool {
	v := os.Getenv(Env)
	return v != "" && v != "0"
}

// Slow skips the test unless the slow tier runs. Call it first.
func Slow(t testing.TB) {
	t.Helper()
	if !Enabled() {
		t.Skipf("slow tier: runs with %s=1 (.ci/run sets it)", Env)
	}
}

// Short reports whether a test that has a size knob runs its short
// version: under go test -short, or when the slow tier is off. The slow
// tier runs the full version, so no check is lost, only repetitions.
func Short() bool {
	return testing.Short() || !Enabled()
}

// UnderRace reports whether the test binary runs under the race
// detector: a randomized test may then run its short version.
func UnderRace() bool { return raceEnabled }

// NotUnderRace skips a test under the race detector. It is for tests
// whose goroutines share nothing but read-only tables, and that churn
// through megabytes: there the detector finds nothing and makes them
// ten times as slow. The plain run (go test ./...) still runs them.
func NotUnderRace(t testing.TB) {
	t.Helper()
	if raceEnabled {
		t.Skip("no goroutines meet here: checked without the race detector")
	}
}
