package daemon

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestAutoWatchGuards: the checks that keep an automatic daemon away
// from where it would do harm.
func TestAutoWatchGuards(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("automatic daemons are started on Linux only")
	}
	if ok, why := watchableFS(t.TempDir()); !ok {
		t.Errorf("the test's temporary directory is not watchable: %s", why)
	}
	if ok, _ := watchableFS(filepath.Join(t.TempDir(), "missing")); ok {
		t.Error("a missing folder is watchable")
	}
	if !watchHeadroom(0) {
		t.Error("no headroom for a folder without directories")
	}
	if watchHeadroom(1 << 40) {
		t.Error("headroom for 2^40 directories")
	}
	env := daemonEnv([]string{"A=1", "TURNBACK_CPUPROFILE=/tmp/p", "TURNBACK_STORE=/s"})
	if strings.Join(env, " ") != "A=1 TURNBACK_STORE=/s" {
		t.Errorf("daemon environment %q: want the profile left out", env)
	}
}
