//go:build !linux

package main

import (
	"fmt"
	"os"
)

// The harness reads /proc, wait4 rusage and Linux stat fields; on other
// systems it only says so (and `go build ./...` keeps working there).
func main() {
	fmt.Fprintln(os.Stderr, "bench: the benchmark harness runs on Linux only")
	os.Exit(1)
}
