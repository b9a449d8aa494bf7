package report

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestGolden renders recorded results (and variants of them covering the
// daemon engine, restic, failures and results from before the automatic
// daemon) and compares the report and the chart with what the harness
// printed for them before the report became a template.
func TestGolden(t *testing.T) {
	cases := []struct {
		name  string
		files []string
	}{
		{"1m", []string{"testdata/1m.json"}},
		{"rerun", []string{"testdata/rerun.json"}},
		{"predates-autowatch", []string{"testdata/predates-autowatch.json"}},
		{"kitchen-sink", []string{"testdata/kitchen-sink.json"}},
		{"merged", []string{"testdata/1m.json", "testdata/rerun.json", "testdata/predates-autowatch.json"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Merge(tc.files)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			md, err := Write(dir, res, false)
			if err != nil {
				t.Fatal(err)
			}
			svg, err := os.ReadFile(filepath.Join(dir, "chart.svg"))
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range []struct{ ext, got string }{{".md", md}, {".svg", string(svg)}} {
				golden := filepath.Join("testdata", tc.name+g.ext)
				if *update {
					if err := os.WriteFile(golden, []byte(g.got), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				if g.got != string(want) {
					t.Errorf("%s differs from %s:\n%s", tc.name+g.ext, golden, firstDiff(string(want), g.got))
				}
			}
		})
	}
}

// firstDiff shows the first line where got and want differ.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\nwant: %q\ngot:  %q", i+1, w, g)
		}
	}
	return "(same lines, different bytes)"
}
