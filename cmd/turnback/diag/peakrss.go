package diag

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

// PeakRSSLine starts the line that TURNBACK_TEST_PEAK_RSS=1 makes the CLI
// print on stderr at exit: the process's own peak resident set (VmHWM,
// Linux), which tests compare with their memory bounds.
const PeakRSSLine = "turnback: peak rss kB "

// ReportPeakRSS prints the PeakRSSLine on w when TURNBACK_TEST_PEAK_RSS
// is set (and the system tells).
func ReportPeakRSS(w io.Writer) {
	if os.Getenv("TURNBACK_TEST_PEAK_RSS") == "" {
		return
	}
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(v), "%d", &kb); err == nil {
				fmt.Fprintf(w, "%s%d\n", PeakRSSLine, kb)
			}
			return
		}
	}
}
