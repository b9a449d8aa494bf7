package main

import (
	"os"
	"os/exec"
	"testing"

	"github.com/turnback/turnback/internal/testtier"
)

// realClient finds an agent's real program for the tests that run it
// against a stand-in for its model's API (the *_real_e2e_test.go files):
// $envVar, else prog on PATH; else it skips the test, saying how to get
// it (.ci/run installs every one, pinned, from npm package pkg).
func realClient(t *testing.T, what, envVar, prog, pkg string) string {
	t.Helper()
	testtier.Slow(t)
	if p := os.Getenv(envVar); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("%s=%s: %v", envVar, p, err)
		}
		return p
	}
	p, err := exec.LookPath(prog)
	if err != nil {
		t.Skipf("%s not found: set %s to the %s program or put %s on PATH (npm install %s)", what, envVar, prog, prog, pkg)
	}
	return p
}
