package diag

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/testhook"
)

// InstallFaults arms the crash-injection hook the tests use, from
// getenv:
// TURNBACK_TEST_CRASH_AT=N kills the process at the N-th restore step;
// TURNBACK_TEST_FAIL_AT=N makes the N-th step fail with "no space left
// on device" (as a full disk would while staging); TURNBACK_TEST_TRACE
// names each step on stderr; TURNBACK_TEST_FILL_AT=STEP=FILE fills the
// disk of FILE, writing it, at the first step named STEP (as another
// process could).
func InstallFaults(repo *turnback.Repo, getenv func(string) string, stderr io.Writer) {
	crash, _ := strconv.Atoi(getenv("TURNBACK_TEST_CRASH_AT"))
	fail, _ := strconv.Atoi(getenv("TURNBACK_TEST_FAIL_AT"))
	fill, fillFile, _ := strings.Cut(getenv("TURNBACK_TEST_FILL_AT"), "=")
	trace := getenv("TURNBACK_TEST_TRACE") != ""
	if crash <= 0 && fail <= 0 && fill == "" && !trace {
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
		if name == fill {
			fillDisk(fillFile)
			fill = ""
		}
		return nil
	})
}

// fillDisk writes file until its disk is full.
func fillDisk(file string) {
	f, err := os.Create(file)
	if err != nil {
		return
	}
	defer f.Close()
	for _, n := range []int{1 << 20, 4096, 1} {
		buf := make([]byte, n)
		for {
			if _, err := f.Write(buf); err != nil {
				break
			}
		}
	}
}
