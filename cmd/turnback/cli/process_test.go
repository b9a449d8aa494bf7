package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/internal/testtier"
)

// These tests run the built binary (testBinary), as separate processes
// on real temporary folders, where a script cannot measure: memory, disk
// use, many files, concurrency, store locking, a damaged store.

// settle waits out the stat cache's racy window: files changed less than
// 100 ms before a capture starts are read again by the next capture.
func settle() { time.Sleep(300 * time.Millisecond) }

// A second capture after changing 5 files in a 10,000-file tree reads only
// those 5 files.
func TestSecondCaptureReadsOnlyChangedFiles(t *testing.T) {
	testtier.Slow(t)
	t.Parallel()
	e := newDirEnv(t, "wt")
	wt := e.dir
	const dirs, perDir = 40, 250
	for d := 0; d < dirs; d++ {
		if err := scriptMakeFiles(filepath.Join(wt, fmt.Sprintf("d%02d", d)), perDir); err != nil {
			t.Fatal(err)
		}
	}
	settle()
	first := e.snapJSON("snap")
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
		e.writeBytes(filepath.FromSlash(p), data)
	}
	settle()
	second := e.snapJSON("snap")
	if second.Stats.HashedFiles != int64(len(changed)) {
		t.Errorf("second snap read %d files, want %d", second.Stats.HashedFiles, len(changed))
	}
	if second.Files != dirs*perDir {
		t.Errorf("second snap: %d files, want %d", second.Files, dirs*perDir)
	}
	if second.Snapshot == first.Snapshot {
		t.Errorf("second snap has the first one's id %s", first.Snapshot)
	}

	third := e.snapJSON("snap")
	if third.Stats.HashedFiles != 0 || third.Snapshot != second.Snapshot {
		t.Errorf("third snap of an unchanged tree: read %d files, id %s; want 0 and %s", third.Stats.HashedFiles, third.Snapshot, second.Snapshot)
	}
	st := e.ok("status")
	if st.stdout != "no changes since "+third.Snapshot[:12]+"\n" {
		t.Errorf("status after the third snap:\n%s", st.stdout)
	}
	// The second turn changed exactly the five files.
	lg := e.ok("--json", "log")
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
	diff := e.ok("diff", first.Snapshot[:12], second.Snapshot[:12])
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
	e := newDirEnv(t, "wt")
	wt := e.dir
	if err := scriptMakeFiles(filepath.Join(wt, "src"), 200); err != nil {
		t.Fatal(err)
	}
	const n = 8
	runs := make([]*cliProc, n)
	for i := range runs {
		runs[i] = e.start("--json", "snap", "-m", fmt.Sprintf("snap %d", i))
	}
	turns := map[int]bool{}
	var id string
	for i, r := range runs {
		res := r.wait()
		if res.code != 0 {
			t.Errorf("snap %d: %v", i, res)
			continue
		}
		var d snapStatsDoc
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
	v := e.run("verify")
	if v.code != 0 || !strings.HasPrefix(v.stdout, "ok: 1 snapshots") {
		t.Errorf("verify after concurrent snaps: %v", v)
	}
	// Every turn but the last changed nothing and was dropped.
	lg := e.ok("--json", "log")
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
