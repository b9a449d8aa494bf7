package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/turnback/turnback/internal/fullbin"
)

var (
	testBinOnce sync.Once
	testBinDir  string // removed by TestMain once the tests have run
	testBinPath string
	testBinErr  error
)

// testBinary builds the turnback binary once per test process and
// returns its path: tests drive it as a user would. turnback-full is
// built beside it, where turnback looks for it (internal/fullbin).
func testBinary(t testing.TB) string {
	t.Helper()
	testBinOnce.Do(func() {
		if testBinDir, testBinErr = os.MkdirTemp("", "turnback-test-bin-"); testBinErr != nil {
			return
		}
		exe := "turnback"
		if runtime.GOOS == "windows" {
			exe += ".exe"
		}
		p := filepath.Join(testBinDir, exe)
		// Static, as the README installs it (CGO_ENABLED=0); one go
		// build for both, so that they share the work.
		build := exec.Command("go", "build", "-o", testBinDir+string(filepath.Separator), "..", filepath.Join("..", "..", "turnback-full"))
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			testBinErr = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		testBinPath = p
	})
	if testBinErr != nil {
		t.Fatalf("building turnback: %v", testBinErr)
	}
	return testBinPath
}

// copyBinaries copies turnback and turnback-full from beside bin into
// dir, mode 0755 (for another user, who cannot reach the build's
// folder), and returns the copy of turnback.
func copyBinaries(t testing.TB, bin, dir string) string {
	t.Helper()
	for _, name := range []string{filepath.Base(bin), fullbin.Name} {
		data, err := os.ReadFile(filepath.Join(filepath.Dir(bin), name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, filepath.Base(bin))
}
