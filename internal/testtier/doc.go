// Package testtier splits the tests in two tiers.
//
// The fast tier is what go test ./... runs: unit, model and in-process
// tests, a few minutes on a small machine. The slow tier adds the
// real-world tests: real agent clients, crash and kill matrices, large
// files and Git LFS, S3 against versitygw, daemons in processes, big
// trees. It runs when the environment variable TURNBACK_TEST_SLOW is 1.
// .ci/run sets it, so CI runs every test.
//
// A slow test calls Slow first: without the switch it is skipped, saying
// why. A randomized test with a size knob asks Short instead: the fast
// tier runs its short version, the slow tier its full one. A test that
// moves megabytes on goroutines sharing nothing calls NotUnderRace: the
// race detector skips it, the plain run keeps it.
package testtier
