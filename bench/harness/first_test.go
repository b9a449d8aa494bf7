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

	"github.com/turnback/turnback/bench/report"
	"github.com/turnback/turnback/internal/testtier"
)

// TestFirstCaptures runs the first-captures scenario alone on a tiny
// generated tree and checks that every step of cli-nowatch and shadow
// git has its samples, ratio and verdict, that every undo left the copy
// as it was, that the cli engine is left out with a note, and that the
// report prints every step. It asserts no time.
func TestFirstCaptures(t *testing.T) {
	testtier.Slow(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	cfg := &report.Config{Trees: []string{"300"}, Engines: []string{"cli", "cli-nowatch", "git"},
		Scenarios: map[string]bool{"first": true}, Reps: 2, Warmup: 0, OutDir: filepath.Join(dir, "out"),
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
		n[s.Scenario+" "+s.Engine]++
		if !s.OK {
			t.Errorf("%s %s rep %d failed: %s %s", s.Scenario, s.Engine, s.Rep, s.Error, s.Verify)
		}
		if s.Scenario == "first-undo" && s.Verify != "ok" {
			t.Errorf("%s undo rep %d: verify %q", s.Engine, s.Rep, s.Verify)
		}
	}
	if len(n) != 2*len(report.FirstSteps) {
		t.Errorf("samples of %d scenario-engine pairs, want %d: %v", len(n), 2*len(report.FirstSteps), n)
	}
	if !strings.Contains(strings.Join(res.Skipped, "\n"), "turnback-cli does not run the first-captures scenario") {
		t.Errorf("no note on the cli engine: %q", res.Skipped)
	}
	md, err := os.ReadFile(filepath.Join(cfg.OutDir, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range report.FirstSteps {
		for _, e := range []string{"turnback-cli-nowatch", "shadow-git"} {
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
		if r, ok := cell.Ratio["turnback-cli-nowatch"]; !ok || r <= 0 || cell.RatioN["turnback-cli-nowatch"] != cfg.Reps {
			t.Errorf("%s: ratio %v (%d pairs)", st.Scenario, r, cell.RatioN["turnback-cli-nowatch"])
		}
		if cell.Target == 0 || cell.Pass == nil {
			t.Errorf("%s: no target or verdict", st.Scenario)
		}
	}
	for _, want := range []string{"first captures: cold capture of a fresh copy", "first captures: no-change capture right after", "first captures: turn capture", "first captures: undo"} {
		if !strings.Contains(string(md), "| "+want+" | 300 |") {
			t.Errorf("results.md has no row %q", want)
		}
	}
}
