//go:build !race

package testtier

// raceEnabled: this test binary was built with the race detector.
const raceEnabled = false
