package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// partialNote heads the report of a run still going (or interrupted).
const partialNote = "**Partial results: the run is still going or was interrupted.**\n\n"

// Write summarizes res and writes results.md, results.json and chart.svg
// into dir; partial marks the report as such. It returns the report.
func Write(dir string, res *Results, partial bool) (string, error) {
	Summarize(res)
	md, err := Markdown(res)
	if err != nil {
		return "", err
	}
	if partial {
		md = partialNote + md
	}
	if err := os.WriteFile(filepath.Join(dir, "results.md"), []byte(md), 0o644); err != nil {
		return "", err
	}
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), data, 0o644); err != nil {
		return "", err
	}
	return md, os.WriteFile(filepath.Join(dir, "chart.svg"), []byte(Chart(res)), 0o644)
}

// Merge reads the results.json files of one or more earlier runs into
// one: trees and samples of all of them, with notes (in Skipped) where
// they differ.
func Merge(files []string) (*Results, error) {
	var out *Results
	for _, f := range files {
		data, err := os.ReadFile(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		var r Results
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if !r.CLIAutoWatch {
			r.Skipped = append(r.Skipped, fmt.Sprintf("note: %s predates the automatic watch daemon: its turnback CLI is the CLI without any daemon (what turnback CLI, no watch measures now)", f))
		}
		if out == nil {
			out = &r
			continue
		}
		mergeInto(out, &r, f)
	}
	if out == nil {
		return nil, fmt.Errorf("report: no results files")
	}
	seen := map[string]bool{}
	var skipped []string
	for _, s := range out.Skipped {
		if !seen[s] {
			seen[s] = true
			skipped = append(skipped, s)
		}
	}
	out.Skipped = skipped
	return out, nil
}

// mergeInto adds the run r, read from file f, to out.
func mergeInto(out, r *Results, f string) {
	out.Trees = append(out.Trees, r.Trees...)
	out.Samples = append(out.Samples, r.Samples...)
	out.Skipped = append(out.Skipped, r.Skipped...)
	if r.Finished.After(out.Finished) {
		out.Finished = r.Finished
	}
	out.Machine.LoadEnd = r.Machine.LoadEnd
	if r.Config != nil && out.Config != nil && r.Config.Reps != out.Config.Reps {
		out.Skipped = append(out.Skipped, fmt.Sprintf("note: merged runs differ in repetitions (%s: %d measured after %d warm-up)", f, r.Config.Reps, r.Config.Warmup))
	}
	if r.Machine.Revision != out.Machine.Revision {
		out.Skipped = append(out.Skipped, fmt.Sprintf("note: %s measured turnback revision %s", f, r.Machine.Revision))
	}
}
