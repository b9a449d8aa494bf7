package report

import (
	"time"
)

// Config is everything the bench command's flags say (kept in
// results.json as it was given).
type Config struct {
	Trees           []string
	UserTrees       []string
	InPlace         bool
	Engines         []string
	Scenarios       map[string]bool
	Reps, Warmup    int
	OutDir          string
	CacheDir        string
	Seed            uint64
	TurnSeed        uint64
	Settle          time.Duration
	Sync            bool
	Rewarm          bool // read the tree again before each cold capture
	CPUProfile      string
	MemProfile      string
	APIKeepOpen     bool
	FullVerify      bool
	GitExcludeBuilt bool
	KeepStores      bool
	Quick           bool
	PrepareOnly     bool
	Bin             string
	WorkDir         string
}

// Scenarios lists the scenarios in the order of the report.
var Scenarios = []string{"cold", "nochange", "turn", "undo", "size"}

// Optional lists the scenarios --scenarios accepts that do not run by
// default.
var Optional = []string{"b2b", "first"}

// B2BSteps are the steps of the back-to-back scenario ("b2b"), in order:
// the engine step and the scenario name of its samples.
var B2BSteps = []struct{ Step, Scenario string }{
	{"cold", "b2b-cold"}, {"nochange", "b2b-nochange"}, {"turn", "b2b-turn"}, {"undo", "b2b-undo"},
}

// FirstSteps are the steps of the first-captures scenario ("first"), in
// order: the engine step and the scenario name of its samples.
var FirstSteps = []struct{ Step, Scenario string }{
	{"cold", "first-cold"}, {"nochange", "first-nochange"}, {"turn", "first-turn"}, {"undo", "first-undo"},
}

// summarized is every scenario name of samples, in the order of the
// report.
func summarized() []string {
	out := append([]string(nil), Scenarios...)
	for _, s := range B2BSteps {
		out = append(out, s.Scenario)
	}
	for _, s := range FirstSteps {
		out = append(out, s.Scenario)
	}
	return out
}

// Sample is one measurement.
type Sample struct {
	Tree          string         `json:"tree"`
	TreeFiles     int            `json:"tree_files"`
	Scenario      string         `json:"scenario"`
	Engine        string         `json:"engine"`
	Rep           int            `json:"rep"` // negative: warm-up
	Warmup        bool           `json:"warmup"`
	Seconds       float64        `json:"seconds,omitempty"`
	Bytes         int64          `json:"bytes,omitempty"` // size scenario
	MaxRSSKB      int64          `json:"max_rss_kb,omitempty"`
	CPUSeconds    float64        `json:"cpu_seconds,omitempty"`
	ForeignCPU    float64        `json:"foreign_cpu_share"`
	Procs         int            `json:"processes,omitempty"`
	OK            bool           `json:"ok"`
	Error         string         `json:"error,omitempty"`
	Verify        string         `json:"verify,omitempty"`
	VerifySeconds float64        `json:"verify_seconds,omitempty"`
	Info          map[string]any `json:"info,omitempty"`
}

// DaemonCounts says how captures through an engine's watch daemons read
// the tree, and their peak RSS.
type DaemonCounts struct {
	Captures     int            `json:"captures"`
	Incremental  int            `json:"incremental"`
	FullWalks    map[string]int `json:"full_walks,omitempty"` // reason -> count
	NotForwarded int            `json:"not_forwarded"`        // commands the daemon did not run
	// Restarts: explicit mode, daemons the harness started untimed
	// outside a cold capture; automatic mode, daemons that appeared
	// outside a cold capture (started by a command run without one).
	Restarts int `json:"restarts"`
	// NoDaemon (automatic mode): steps (captures and undos) before which
	// no daemon served the folder.
	NoDaemon int `json:"no_daemon,omitempty"`
	// PeakRSSKB is the largest VmHWM of the engine's daemons on the tree.
	PeakRSSKB int64 `json:"peak_rss_kb,omitempty"`
}

// TreeResult describes a tree and how long each step took.
type TreeResult struct {
	Name          string  `json:"name"`
	Kind          string  `json:"kind"`
	Dir           string  `json:"dir"`
	Files         int     `json:"files"`
	Dirs          int     `json:"dirs"`
	Links         int     `json:"symlinks"`
	Bytes         int64   `json:"bytes"`
	TurnbackFiles int     `json:"turnback_files"` // files turnback captures
	GitFiles      int     `json:"git_files"`      // paths in the shadow git index
	PrepSecs      float64 `json:"prep_seconds"`   // generation or copy in this run
	ReadySecs     float64 `json:"ready_seconds"`  // until verified and ready
	Cached        bool    `json:"cached"`
	// CLIPeakRSSKB is the largest max RSS (wait4) of any turnback CLI
	// process (the clients of turnback-cli, -cli-nowatch and -daemon;
	// not their watch daemons) on this tree.
	CLIPeakRSSKB int64 `json:"cli_peak_rss_kb"`
	// Daemons: per engine running watch daemons (turnback-cli's started
	// by itself, turnback-daemon's by watch --detach), how captures
	// through them read the tree and their peak RSS (VmHWM, read before
	// stopping them).
	Daemons map[string]*DaemonCounts `json:"daemons,omitempty"`
	// DaemonPeakRSSKB and Daemon are the turnback-daemon engine's, as in
	// results from before Daemons.
	DaemonPeakRSSKB int64         `json:"daemon_peak_rss_kb,omitempty"`
	Daemon          *DaemonCounts `json:"daemon,omitempty"`
	// FirstCapture is each engine's untimed first capture when the cold
	// scenario did not run (for the daemon: its start-up).
	FirstCapture map[string]*Sample `json:"first_capture,omitempty"`
	Steps        map[string]float64 `json:"step_seconds"`
	Turn         map[string]any     `json:"turn,omitempty"`
	Info         map[string]any     `json:"info,omitempty"`
	Error        string             `json:"error,omitempty"`
}

// Machine describes where the run happened.
type Machine struct {
	NProc     int     `json:"nproc"`
	CPU       string  `json:"cpu"`
	MemTotal  string  `json:"mem_total"`
	Kernel    string  `json:"kernel"`
	GoVersion string  `json:"go_version"`
	Git       string  `json:"git_version"`
	Restic    string  `json:"restic_version,omitempty"`
	Date      string  `json:"date"`
	Revision  string  `json:"turnback_revision"`
	LoadStart string  `json:"loadavg_start"`
	LoadEnd   string  `json:"loadavg_end"`
	BuildSecs float64 `json:"cli_build_seconds"`
}

// Results is the whole run.
type Results struct {
	// CLIAutoWatch marks results in which turnback-cli is the CLI with
	// its automatic watch daemon; in earlier results it was the CLI
	// without any daemon (turnback-cli-nowatch now).
	CLIAutoWatch bool          `json:"cli_auto_watch"`
	Machine      Machine       `json:"machine"`
	Config       *Config       `json:"config"`
	Started      time.Time     `json:"started"`
	Finished     time.Time     `json:"finished"`
	Engines      []string      `json:"engines"`
	Skipped      []string      `json:"skipped,omitempty"`
	Trees        []*TreeResult `json:"trees"`
	Samples      []*Sample     `json:"samples"`
	Summary      []*Cell       `json:"summary"`
}

// Cell is the summary of one scenario on one tree.
type Cell struct {
	Scenario  string             `json:"scenario"`
	Tree      string             `json:"tree"`
	Files     int                `json:"tree_files"`
	Median    map[string]float64 `json:"median"`      // seconds (bytes for size)
	Min       map[string]float64 `json:"min"`         //
	Max       map[string]float64 `json:"max"`         //
	N         map[string]int     `json:"n"`           // measured samples that succeeded
	Failed    map[string]int     `json:"failed"`      // measured samples that failed (error or tree differs)
	Foreign   map[string]float64 `json:"foreign"`     // median foreign CPU share
	CPU       map[string]float64 `json:"cpu_median"`  // median CPU seconds (user+sys)
	CPURatio  map[string]float64 `json:"cpu_ratio"`   // median of pairwise CPU-time ratios to shadow git
	Ratio     map[string]float64 `json:"ratio"`       // engine -> median of pairwise engine/shadow-git
	RatioN    map[string]int     `json:"ratio_pairs"` // pairs behind each ratio
	Target    float64            `json:"target,omitempty"`
	Pass      *bool              `json:"pass,omitempty"`            // turnback-cli ratio within target
	PeakRSSKB int64              `json:"cli_peak_rss_kb,omitempty"` // turnback CLI processes (clients), any CLI engine
}

// InfoFloat reads a number from a sample's Info (a float64 once read
// from JSON, an int or int64 when just measured).
func InfoFloat(info map[string]any, k string) (float64, bool) {
	switch v := info[k].(type) {
	case float64:
		return v, true
	case int64:
		return float64(v), true
	case int:
		return float64(v), true
	}
	return 0, false
}

// TreeDaemon is what engine's watch daemons did on tr (nil: none ran).
func TreeDaemon(tr *TreeResult, engine string) *DaemonCounts {
	if c := tr.Daemons[engine]; c != nil {
		return c
	}
	if engine == "turnback-daemon" && tr.Daemon != nil {
		// Results from before Daemons.
		c := *tr.Daemon
		c.PeakRSSKB = max(c.PeakRSSKB, tr.DaemonPeakRSSKB)
		return &c
	}
	return nil
}
