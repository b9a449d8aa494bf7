package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/cmd/turnback/diag"
	"github.com/turnback/turnback/internal/testtier"
)

// These tests run the built binary (testBinary), as separate processes
// on real temporary folders, where a script cannot measure: memory, disk
// use, many files, concurrency, store locking, a damaged store.

// tbEnv returns an environment for the binary: the caller's, minus
// everything that steers turnback, with HOME and XDG_DATA_HOME inside
// base so that nothing touches the real home.
func tbEnv(base string, extra ...string) []string {
	return cliEnviron(filepath.Join(base, "home"), filepath.Join(base, "xdg"), append([]string{"TURNBACK_AUTO_WATCH=0"}, extra...)...)
}

type tbResult struct {
	stdout, stderr string
	code           int
	maxRSSKiB      int64 // peak resident set of the process (Linux: KiB)
}

func (r tbResult) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// tbCommand prepares the binary to run in dir with env.
func tbCommand(t testing.TB, dir string, env []string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	cmd := exec.Command(testBinary(t), args...)
	cmd.Dir, cmd.Env = dir, env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	return cmd, &out, &errb
}

func tbFinish(t *testing.T, cmd *exec.Cmd, out, errb *bytes.Buffer, err error) tbResult {
	t.Helper()
	r := tbResult{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("running %v: %v", cmd.Args, err)
	}
	r.maxRSSKiB = childMaxRSS(cmd.ProcessState)
	// rusage's maxrss of a child started by vfork counts the parent's
	// memory before exec (a big test process inflates it); the process's
	// own high-water mark, when it reports one, is the true figure.
	if i := strings.LastIndex(r.stderr, diag.PeakRSSLine); i >= 0 {
		var kb int64
		if _, err := fmt.Sscanf(r.stderr[i+len(diag.PeakRSSLine):], "%d", &kb); err == nil {
			r.maxRSSKiB = kb
		}
	}
	return r
}

// tbRun runs the binary and returns what it did.
func tbRun(t *testing.T, dir string, env []string, args ...string) tbResult {
	t.Helper()
	cmd, out, errb := tbCommand(t, dir, env, args...)
	return tbFinish(t, cmd, out, errb, cmd.Run())
}

// tbOK runs the binary and fails the test unless it exits 0.
func tbOK(t *testing.T, dir string, env []string, args ...string) tbResult {
	t.Helper()
	r := tbRun(t, dir, env, args...)
	if r.code != 0 {
		t.Fatalf("turnback %s: %v", strings.Join(args, " "), r)
	}
	return r
}

type tbSnapDoc struct {
	Snapshot string `json:"snapshot"`
	Session  string `json:"session"`
	Turn     int    `json:"turn"`
	Files    int64  `json:"files"`
	Bytes    int64  `json:"bytes"`
	Stats    struct {
		Files       int64 `json:"files"`
		Bytes       int64 `json:"bytes"`
		HashedFiles int64 `json:"hashed_files"`
		HashedBytes int64 `json:"hashed_bytes"`
		NewBlobs    int64 `json:"new_blobs"`
		NewBytes    int64 `json:"new_bytes"`
		Uncaptured  []any `json:"uncaptured"`
		Problems    []any `json:"problems"`
	} `json:"stats"`
}

func tbSnapJSON(t *testing.T, dir string, env []string, args ...string) tbSnapDoc {
	t.Helper()
	r := tbOK(t, dir, env, append([]string{"--json"}, args...)...)
	var d tbSnapDoc
	cliOneJSON(t, r.stdout, &d)
	return d
}

// tbSettle waits out the stat cache's racy window: files changed less than
// 100 ms before a capture starts are read again by the next capture.
func tbSettle() { time.Sleep(300 * time.Millisecond) }

func tbWriteFile(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A second capture after changing 5 files in a 10,000-file tree reads only
// those 5 files.
func TestSecondCaptureReadsOnlyChangedFiles(t *testing.T) {
	testtier.Slow(t)
	t.Parallel()
	base := t.TempDir()
	wt := filepath.Join(base, "wt")
	env := tbEnv(base)
	const dirs, perDir = 40, 250
	for d := 0; d < dirs; d++ {
		if err := scriptMakeFiles(filepath.Join(wt, fmt.Sprintf("d%02d", d)), perDir); err != nil {
			t.Fatal(err)
		}
	}
	tbSettle()
	first := tbSnapJSON(t, wt, env, "snap")
	if first.Files != dirs*perDir || first.Stats.HashedFiles != dirs*perDir {
		t.Fatalf("first snap: %d files, %d read; want %d and %d", first.Files, first.Stats.HashedFiles, dirs*perDir, dirs*perDir)
	}

	changed := []string{"d00/f00000", "d07/f00100", "d07/f00101", "d20/f00249", "d39/f00042"}
	for i, p := range changed {
		// Same size as before for some of them: only stat data and
		// content differ.
		data := fmt.Appendf(nil, "FILE %d\n", i)
		if i%2 == 1 {
			data = fmt.Appendf(nil, "edited file number %d\n", i)
		}
		tbWriteFile(t, filepath.Join(wt, filepath.FromSlash(p)), data)
	}
	tbSettle()
	second := tbSnapJSON(t, wt, env, "snap")
	if second.Stats.HashedFiles != int64(len(changed)) {
		t.Errorf("second snap read %d files, want %d", second.Stats.HashedFiles, len(changed))
	}
	if second.Files != dirs*perDir {
		t.Errorf("second snap: %d files, want %d", second.Files, dirs*perDir)
	}
	if second.Snapshot == first.Snapshot {
		t.Errorf("second snap has the first one's id %s", first.Snapshot)
	}

	third := tbSnapJSON(t, wt, env, "snap")
	if third.Stats.HashedFiles != 0 || third.Snapshot != second.Snapshot {
		t.Errorf("third snap of an unchanged tree: read %d files, id %s; want 0 and %s", third.Stats.HashedFiles, third.Snapshot, second.Snapshot)
	}
	st := tbOK(t, wt, env, "status")
	if st.stdout != "no changes since "+third.Snapshot[:12]+"\n" {
		t.Errorf("status after the third snap:\n%s", st.stdout)
	}
	// The second turn changed exactly the five files.
	lg := tbOK(t, wt, env, "--json", "log")
	var log struct {
		Turns []struct {
			Turn     int `json:"turn"`
			Modified int `json:"modified"`
			Added    int `json:"added"`
			Deleted  int `json:"deleted"`
		} `json:"turns"`
	}
	cliOneJSON(t, lg.stdout, &log)
	if len(log.Turns) != 2 || log.Turns[1].Modified != len(changed) || log.Turns[1].Added != 0 || log.Turns[1].Deleted != 0 {
		t.Errorf("log: %+v; want the open turn 3 and turn 1 with %d modified", log.Turns, len(changed))
	}
	diff := tbOK(t, wt, env, "diff", first.Snapshot[:12], second.Snapshot[:12])
	var got []string
	for _, line := range strings.Split(diff.stdout, "\n") {
		if p, ok := strings.CutPrefix(line, "diff --turnback a/"); ok {
			got = append(got, strings.Fields(p)[0])
		}
	}
	if strings.Join(got, " ") != strings.Join(changed, " ") {
		t.Errorf("diff names %q, want %q", got, changed)
	}
}

// Eight snaps started at once on one store all succeed (the store lock
// makes them wait), each gets its own turn number, and the store verifies.
func TestConcurrentSnaps(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	wt := filepath.Join(base, "wt")
	env := tbEnv(base)
	if err := scriptMakeFiles(filepath.Join(wt, "src"), 200); err != nil {
		t.Fatal(err)
	}
	const n = 8
	type run struct {
		cmd       *exec.Cmd
		out, errb *bytes.Buffer
	}
	runs := make([]run, n)
	for i := range runs {
		cmd, out, errb := tbCommand(t, wt, env, "--json", "snap", "-m", fmt.Sprintf("snap %d", i))
		runs[i] = run{cmd, out, errb}
	}
	for _, r := range runs {
		if err := r.cmd.Start(); err != nil {
			t.Fatal(err)
		}
	}
	turns := map[int]bool{}
	var id string
	for i, r := range runs {
		res := tbFinish(t, r.cmd, r.out, r.errb, r.cmd.Wait())
		if res.code != 0 {
			t.Errorf("snap %d: %v", i, res)
			continue
		}
		var d tbSnapDoc
		cliOneJSON(t, res.stdout, &d)
		if turns[d.Turn] {
			t.Errorf("snap %d: turn %d given twice", i, d.Turn)
		}
		turns[d.Turn] = true
		if id == "" {
			id = d.Snapshot
		} else if d.Snapshot != id {
			t.Errorf("snap %d: id %s, others %s", i, d.Snapshot, id)
		}
	}
	for k := 1; k <= n; k++ {
		if !turns[k] {
			t.Errorf("no snap got turn %d (got %v)", k, turns)
		}
	}
	v := tbRun(t, wt, env, "verify")
	if v.code != 0 || !strings.HasPrefix(v.stdout, "ok: 1 snapshots") {
		t.Errorf("verify after concurrent snaps: %v", v)
	}
	// Every turn but the last changed nothing and was dropped.
	lg := tbOK(t, wt, env, "--json", "log")
	var log struct {
		Turns []struct {
			Turn int  `json:"turn"`
			Open bool `json:"open"`
		} `json:"turns"`
	}
	cliOneJSON(t, lg.stdout, &log)
	if len(log.Turns) != 1 || log.Turns[0].Turn != n || !log.Turns[0].Open {
		t.Errorf("log after %d concurrent snaps: %+v; want only the open turn %d", n, log.Turns, n)
	}
}
