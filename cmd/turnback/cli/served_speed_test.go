package cli

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"
)

// TestMeasureServedSpeed (TURNBACK_TEST_MEASURE=1 only; it measures and
// asserts only that the commands succeed): in-process times of status,
// a turn (snap, one edit, end) and undo through a watch daemon, on two
// identical folders with one daemon each, runs alternated. Variant A
// asks for the session list first (pickInDaemon false, as before), B
// has the daemon pick the session in the command's request; the two
// folders take turns with each variant, so that what differs between
// them (one runs right after the other's undo) counts for both. Medians
// are logged.
func TestMeasureServedSpeed(t *testing.T) {
	if os.Getenv("TURNBACK_TEST_MEASURE") != "1" {
		t.Skip("a measurement: TURNBACK_TEST_MEASURE=1")
	}
	n := 40
	var envs [2]*cliEnv
	for i := range envs {
		e := newStoreEnv(t)
		for j := range 300 {
			e.write(fmt.Sprintf("d%d/f%d.txt", j%10, j), fmt.Sprintf("file %d\n", j))
		}
		e.ok("snap")
		e.ok("end")
		e.ok("watch", "--detach")
		t.Cleanup(func() { e.run("watch", "--stop") })
		envs[i] = e
	}
	defer func() { pickInDaemon = true }()
	type sample map[string][]time.Duration
	got := [2]sample{{}, {}}
	timed := func(i, v int, what string, args ...string) {
		t.Helper()
		e := envs[i]
		pickInDaemon = v == 1
		start := time.Now()
		r := e.execHere(context.Background(), e.workDir(), nil, append(e.flags(), args...))
		took := time.Since(start)
		if r.code != 0 {
			t.Fatalf("%s: %s", what, r)
		}
		got[v][what] = append(got[v][what], took)
	}
	for k := range n + 3 {
		for _, i := range [][2]int{{0, 1}, {1, 0}}[k%2] {
			e, v := envs[i], (i+k/2)%2
			timed(i, v, "status", "status")
			start := time.Now()
			timed(i, v, "snap", "snap")
			e.write("d0/f0.txt", fmt.Sprintf("edit %d\n", k))
			timed(i, v, "end", "end")
			got[v]["turn"] = append(got[v]["turn"], time.Since(start))
			timed(i, v, "undo", "undo")
		}
	}
	for _, what := range []string{"status", "snap", "end", "turn", "undo"} {
		var med [2]time.Duration
		for i := range got {
			d := got[i][what][3:] // the first runs warm up
			slices.Sort(d)
			med[i] = d[len(d)/2]
		}
		t.Logf("%-6s list first %8v  picked by the daemon %8v  (%+.1f%%)", what, med[0], med[1],
			100*(float64(med[1])-float64(med[0]))/float64(med[0]))
	}
}
