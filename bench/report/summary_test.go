package report

import (
	"math"
	"slices"
	"testing"
)

func TestMedian(t *testing.T) {
	cases := []struct {
		name string
		xs   []float64
		want float64
	}{
		{"one", []float64{3}, 3},
		{"odd", []float64{5, 1, 3}, 3},
		{"even: mean of the middle two", []float64{4, 1, 3, 2}, 2.5},
		{"two", []float64{1, 2}, 1.5},
		{"outlier high", []float64{1, 1.1, 0.9, 1.05, 100}, 1.05},
		{"outlier low", []float64{0.001, 2, 2.1, 1.9}, 1.95},
		{"ties", []float64{2, 2, 2, 9}, 2},
	}
	for _, tc := range cases {
		in := slices.Clone(tc.xs)
		if got := Median(tc.xs); got != tc.want {
			t.Errorf("%s: Median(%v) = %v, want %v", tc.name, in, got, tc.want)
		}
		if !slices.Equal(in, tc.xs) {
			t.Errorf("%s: Median reordered its input", tc.name)
		}
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("Median(nil) is not NaN")
	}
}

func TestPairRatios(t *testing.T) {
	cases := []struct {
		name         string
		engine, peer map[int]float64
		want         []float64
	}{
		{"pair by pair", map[int]float64{0: 1, 1: 2}, map[int]float64{0: 4, 1: 4}, []float64{0.25, 0.5}},
		{"rep the peer lacks left out", map[int]float64{0: 1, 1: 2}, map[int]float64{1: 8}, []float64{0.25}},
		{"peer 0 left out", map[int]float64{0: 1, 1: 3}, map[int]float64{0: 0, 1: 6}, []float64{0.5}},
		{"no peer", map[int]float64{0: 1}, nil, nil},
	}
	for _, tc := range cases {
		got := PairRatios(tc.engine, tc.peer)
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestTarget(t *testing.T) {
	cases := []struct {
		scenario string
		files    int
		want     float64
	}{
		{"cold", 10_000, 0.25},
		{"cold", 499_999, 0.25},
		{"cold", 500_000, 0.3},
		{"cold", 1_000_000, 0.3},
		{"nochange", 100, 0.7},
		{"turn", 100, 0.7},
		{"size", 100, 0.7},
		{"undo", 1_000_000, 0.5},
		{"other", 100, 0},
	}
	for _, tc := range cases {
		if got := Target(tc.scenario, tc.files); got != tc.want {
			t.Errorf("Target(%s, %d) = %v, want %v", tc.scenario, tc.files, got, tc.want)
		}
	}
}

func TestVerdict(t *testing.T) {
	cases := []struct {
		name   string
		ratio  float64 // <0: none
		target float64
		failed int
		want   string
		pass   bool
	}{
		{"below", 0.2, 0.25, 0, "0.20 PASS (≤0.25)", true},
		{"at the bound passes", 0.5, 0.5, 0, "0.50 PASS (≤0.5)", true},
		{"just above", 0.5001, 0.5, 0, "0.50 MISS (≤0.5)", false},
		{"above", 0.9, 0.7, 0, "0.90 MISS (≤0.7)", false},
		{"a failed sample misses", 0.1, 0.7, 1, "0.10 MISS (≤0.7)", false},
		{"no target: ratio only", 1.234, 0, 0, "1.23", false},
		{"no ratio", -1, 0.7, 0, "—", false},
	}
	for _, tc := range cases {
		c := &Cell{Ratio: map[string]float64{}, Failed: map[string]int{"e": tc.failed}, Target: tc.target}
		if tc.ratio >= 0 {
			c.Ratio["e"] = tc.ratio
		}
		if got := Verdict(c, "e"); got != tc.want {
			t.Errorf("%s: Verdict = %q, want %q", tc.name, got, tc.want)
		}
		if got := Pass(c, "e"); got != tc.pass {
			t.Errorf("%s: Pass = %v, want %v", tc.name, got, tc.pass)
		}
	}
}

// sample is a measured sample of tree t.
func sample(scenario, engine string, rep int, secs, cpu float64) *Sample {
	return &Sample{Tree: "t", Scenario: scenario, Engine: engine, Rep: rep, Seconds: secs, CPUSeconds: cpu, OK: true}
}

// TestSummarize: medians per engine, pairwise ratios to shadow git (not
// the ratio of the medians), CPU ratios, failures, warm-ups left out and
// the CLI's verdict.
func TestSummarize(t *testing.T) {
	res := &Results{Trees: []*TreeResult{{Name: "t", Files: 10_000}}}
	git := []float64{1, 2, 10}
	cli := []float64{0.2, 0.6, 1} // ratios 0.2, 0.3, 0.1: median 0.2; ratio of medians 0.3
	for i := range git {
		res.Samples = append(res.Samples, sample("cold", "shadow-git", i, git[i], git[i]/2), sample("cold", "turnback-cli", i, cli[i], cli[i]))
	}
	warm := sample("cold", "turnback-cli", -1, 100, 100)
	warm.Warmup = true
	failed := sample("cold", "turnback-api", 0, 0, 0)
	failed.OK = false
	res.Samples = append(res.Samples, warm, failed, &Sample{Tree: "t", Scenario: "size", Engine: "shadow-git", Bytes: 1000, OK: true},
		&Sample{Tree: "t", Scenario: "size", Engine: "turnback-cli", Bytes: 800, OK: true})
	Summarize(res)
	if len(res.Summary) != 2 {
		t.Fatalf("%d cells, want 2 (cold, size)", len(res.Summary))
	}
	c := res.Summary[0]
	if c.Scenario != "cold" || c.Median["turnback-cli"] != 0.6 || c.Median["shadow-git"] != 2 || c.Min["turnback-cli"] != 0.2 || c.Max["turnback-cli"] != 1 {
		t.Errorf("cold medians: %+v", c)
	}
	if math.Abs(c.Ratio["turnback-cli"]-0.2) > 1e-12 || c.RatioN["turnback-cli"] != 3 {
		t.Errorf("cold ratio %v over %d pairs, want the median of pairwise ratios 0.2 over 3", c.Ratio["turnback-cli"], c.RatioN["turnback-cli"])
	}
	if math.Abs(c.CPURatio["turnback-cli"]-0.4) > 1e-12 {
		t.Errorf("cold CPU ratio %v, want 0.4", c.CPURatio["turnback-cli"])
	}
	if c.Failed["turnback-api"] != 1 || c.N["turnback-api"] != 0 || c.N["turnback-cli"] != 3 {
		t.Errorf("counts: failed %v, n %v", c.Failed, c.N)
	}
	if c.Target != 0.25 || c.Pass == nil || !*c.Pass {
		t.Errorf("cold verdict: target %v, pass %v", c.Target, c.Pass)
	}
	if s := res.Summary[1]; s.Scenario != "size" || s.Median["turnback-cli"] != 800 || s.Ratio["turnback-cli"] != 0.8 || *s.Pass {
		t.Errorf("size cell: %+v", s)
	}
}

func TestFormat(t *testing.T) {
	cases := []struct{ got, want string }{
		{fmtDur(0.0123), "12 ms"},
		{fmtDur(0.9994), "999 ms"},
		{fmtDur(1), "1.00 s"},
		{fmtDur(9.994), "9.99 s"},
		{fmtDur(12.34), "12.3 s"},
		{fmtDur(math.NaN()), "—"},
		{fmtBytes(999e6), "999.0 MB"},
		{fmtBytes(1e9), "1.00 GB"},
		{fmtCount(999), "999"},
		{fmtCount(10_000), "10.0k"},
		{fmtCount(1_000_000), "1.00M"},
	}
	for i, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("case %d: %q, want %q", i, tc.got, tc.want)
		}
	}
}
