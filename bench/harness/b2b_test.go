//go:build linux

package harness

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/bench/engine"
	"github.com/turnback/turnback/bench/report"
	"github.com/turnback/turnback/internal/testtier"
)

// TestMain lets the test binary serve as the spawn helper, as the bench
// binary does (without it, the harness would run the tests again as its
// helper).
func TestMain(m *testing.M) {
	if os.Getenv(engine.SpawnEnv) == "1" {
		os.Exit(engine.SpawnHelper())
	}
	os.Exit(m.Run())
}

// TestBackToBack runs the back-to-back scenario alone on a tiny
// generated tree with the CLI (with and without watch) and shadow git,
// and checks that the results hold every step of every engine, each
// with a ratio to shadow git and a verdict, that every undo left the
// tree as it was, and that the report prints every step. It asserts no
// time.
func TestBackToBack(t *testing.T) {
	testtier.Slow(t)
	if testing.Short() {
		t.Skip("builds turnback and generates a tree")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	cfg := &report.Config{Trees: []string{"300"}, Engines: []string{"cli", "cli-nowatch", "git"},
		Scenarios: map[string]bool{"b2b": true}, Reps: 2, Warmup: 0, OutDir: filepath.Join(dir, "out"),
		CacheDir: filepath.Join(dir, "cache"), Seed: 1, TurnSeed: 1, Settle: 10 * time.Millisecond}
	if err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(cfg.OutDir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res report.Results
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, s := range res.Samples {
		if !strings.HasPrefix(s.Scenario, "b2b-") {
			continue
		}
		n[s.Scenario+" "+s.Engine]++
		if !s.OK {
			t.Errorf("%s %s rep %d failed: %s %s", s.Scenario, s.Engine, s.Rep, s.Error, s.Verify)
		}
		if s.Scenario == "b2b-undo" && s.Verify != "ok" {
			t.Errorf("%s undo rep %d: verify %q", s.Engine, s.Rep, s.Verify)
		}
	}
	md, err := os.ReadFile(filepath.Join(cfg.OutDir, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range report.B2BSteps {
		for _, e := range []string{"turnback-cli", "turnback-cli-nowatch", "shadow-git"} {
			if n[st.Scenario+" "+e] != cfg.Reps {
				t.Errorf("%s %s: %d samples, want %d", st.Scenario, e, n[st.Scenario+" "+e], cfg.Reps)
			}
		}
		var cell *report.Cell
		for _, c := range res.Summary {
			if c.Scenario == st.Scenario && c.Tree == "300" {
				cell = c
			}
		}
		if cell == nil {
			t.Errorf("%s: no summary cell", st.Scenario)
			continue
		}
		for _, e := range []string{"turnback-cli", "turnback-cli-nowatch"} {
			if r, ok := cell.Ratio[e]; !ok || r <= 0 || cell.RatioN[e] != cfg.Reps {
				t.Errorf("%s %s: ratio %v (%d pairs)", st.Scenario, e, r, cell.RatioN[e])
			}
		}
		if cell.Target == 0 || cell.Pass == nil {
			t.Errorf("%s: no target or verdict", st.Scenario)
		}
	}
	for _, want := range []string{"back-to-back: cold capture", "back-to-back: no-change capture", "back-to-back: turn capture", "back-to-back: undo"} {
		if !strings.Contains(string(md), "| "+want+" | 300 |") {
			t.Errorf("results.md has no row %q", want)
		}
	}
	t.Logf("results.md:\n%s", md)
}
