package diag

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/testhook"
)

// InstallFaults arms the crash-injection hook the tests use, from
// getenv:
// TURNBACK_TEST_CRASH_AT=N kills the process at the N-th restore step;
// TURNBACK_TEST_FAIL_AT=N makes the N-th step fail with "no space left
// on device" (as a full disk would while staging); TURNBACK_TEST_TRACE
// names each step on stderr.
func InstallFaults(repo *turnback.Repo, getenv func(string) string, stderr io.Writer) {
	crash, _ := strconv.Atoi(getenv("TURNBACK_TEST_CRASH_AT"))
	fail, _ := strconv.Atoi(getenv("TURNBACK_TEST_FAIL_AT"))
	trace := getenv("TURNBACK_TEST_TRACE") != ""
	if crash <= 0 && fail <= 0 && !trace {
		return
	}
	step := 0
	testhook.SetRestoreHook(repo, func(name string) error {
		step++
		if trace {
			fmt.Fprintf(stderr, "step %d: %s\n", step, name)
		}
		if step == crash {
			p, _ := os.FindProcess(os.Getpid())
			_ = p.Kill()
			select {}
		}
		if step == fail {
			return errNoSpace
		}
		return nil
	})
}
