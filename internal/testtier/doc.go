// Package testtier splits the tests in two tiers.
//
// The fast tier is what go test ./... runs: unit, model and in-process
// tests, a few minutes on a small machine. The slow tier adds the
// real-world tests: real agent clients, crash and kill matrices, large
// files and Git LFS, S3 against versitygw, daemons in processes, big
// trees. A slow test calls Slow first; it runs only when the environment
// variable TURNBACK_TEST_SLOW is set to 1 (.ci/run sets it), and is
// skipped otherwise, saying why.
package testtier
