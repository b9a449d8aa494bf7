package cli

import (
	"bufio"
	"strconv"
	"strings"
	"testing"
)

// initAllocLimit is what the package initialisation of one of turnback's
// own packages may allocate. Every hook and every command is a new
// process and pays for every package's init, whatever it runs.
const initAllocLimit = 4 << 10

// TestStartupInitCheap: turnback's own packages build their regexps,
// tables and styles on first use, not at process start (issue #34). The
// runtime reports each package's init with GODEBUG=inittrace=1: time,
// bytes and allocations. Bytes are exact from run to run, so the test
// bounds those.
func TestStartupInitCheap(t *testing.T) {
	e := newBinEnv(t).with("GODEBUG=inittrace=1")
	r := e.exec("", nil, "version")
	if r.code != 0 {
		t.Fatalf("want exit 0, got %v", r)
	}
	inits := 0
	sc := bufio.NewScanner(strings.NewReader(r.stderr))
	for sc.Scan() {
		// init github.com/turnback/turnback/x @4.6 ms, 0.017 ms clock, 9304 bytes, 104 allocs
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		inits++
		pkg := f[1]
		if pkg != "github.com/turnback/turnback" && !strings.HasPrefix(pkg, "github.com/turnback/turnback/") {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		if n > initAllocLimit {
			t.Errorf("%s allocates %d bytes at process start (limit %d): build it on first use (sync.OnceValue, internal/lazyre)", pkg, n, initAllocLimit)
		}
	}
	if inits < 50 {
		t.Fatalf("%d package inits traced, want the runtime's report of each:\n%s", inits, r.stderr)
	}
}
