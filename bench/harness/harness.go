//go:build linux

package harness

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/turnback/turnback/bench/engine"
	"github.com/turnback/turnback/bench/report"
	"github.com/turnback/turnback/bench/trees"
	"github.com/turnback/turnback/walker/ignore"
)

var runStart = time.Now()

// Logf reports progress on stderr, with the seconds since the start.
func Logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[%7.1fs] %s\n", time.Since(runStart).Seconds(), fmt.Sprintf(format, args...))
}

func init() { engine.Logf = Logf }

// BenchDir is the bench directory of the module (where results and the
// cache go by default), or "bench" when the sources are not at hand.
func BenchDir() string {
	if _, file, _, ok := runtime.Caller(0); ok {
		d := filepath.Dir(filepath.Dir(file))
		if _, err := os.Stat(filepath.Join(d, "main.go")); err == nil {
			return d
		}
	}
	return "bench"
}

// Run runs the benchmark cfg describes and writes its results.
func Run(ctx context.Context, cfg *report.Config) error {
	if err := prepareDirs(cfg); err != nil {
		return err
	}
	res := &report.Results{CLIAutoWatch: true, Machine: machineInfo(), Config: cfg, Started: time.Now().UTC()}
	// Engines stop their watch daemons; this catches any left behind by
	// a run that ended early.
	defer engine.StopDaemons()
	res.Machine.LoadStart = loadAvg()
	var engines []engine.Engine
	if !cfg.PrepareOnly {
		var err error
		if engines, err = setupEngines(ctx, cfg, res); err != nil {
			return err
		}
	}
	if err := runTrees(ctx, cfg, engines, res); err != nil {
		return err
	}
	if cfg.PrepareOnly {
		return nil
	}
	res.Finished = time.Now().UTC()
	res.Machine.LoadEnd = loadAvg()
	return writeResults(res)
}

// prepareDirs makes the output, cache and profile directories and makes
// the cache and work directories absolute.
func prepareDirs(cfg *report.Config) error {
	for _, d := range []string{cfg.OutDir, cfg.CacheDir, cfg.CPUProfile, cfg.MemProfile} {
		if d != "" {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
		}
	}
	var err error
	if cfg.CacheDir, err = filepath.Abs(cfg.CacheDir); err != nil {
		return err
	}
	if cfg.WorkDir != "" {
		// Stores must not be relative: turnback resolves them against
		// the work tree.
		if cfg.WorkDir, err = filepath.Abs(cfg.WorkDir); err != nil {
			return err
		}
	}
	return nil
}

// setupEngines makes the engines cfg names (building the turnback binary
// for the CLI ones) and leaves out, with a note, those that cannot run.
func setupEngines(ctx context.Context, cfg *report.Config, res *report.Results) ([]engine.Engine, error) {
	var engines []engine.Engine
	for _, name := range cfg.Engines {
		e, err := newEngine(ctx, cfg, res, name)
		if err != nil {
			return nil, err
		}
		if ok, why := e.Available(); !ok {
			msg := fmt.Sprintf("engine %s skipped: %s", e.Name(), why)
			Logf("%s", msg)
			res.Skipped = append(res.Skipped, msg)
			continue
		}
		if r, ok := e.(*engine.Restic); ok {
			res.Machine.Restic = r.Version()
		}
		engines = append(engines, e)
		res.Engines = append(res.Engines, e.Name())
	}
	if len(engines) == 0 {
		return nil, fmt.Errorf("no engine can run")
	}
	return engines, nil
}

func newEngine(ctx context.Context, cfg *report.Config, res *report.Results, name string) (engine.Engine, error) {
	switch name {
	case "cli", "cli-nowatch", "daemon":
		if cfg.Bin == "" {
			cfg.Bin = filepath.Join(cfg.CacheDir, "bin", "turnback")
			start := time.Now()
			if err := buildCLI(ctx, cfg.Bin); err != nil {
				return nil, fmt.Errorf("build turnback: %w", err)
			}
			res.Machine.BuildSecs = time.Since(start).Seconds()
			Logf("built %s in %.1fs", cfg.Bin, res.Machine.BuildSecs)
		}
		switch name {
		case "cli":
			return engine.NewCLI(cfg.Bin), nil
		case "cli-nowatch":
			return engine.NewNoWatchCLI(cfg.Bin), nil
		}
		return engine.NewDaemon(cfg.Bin), nil
	case "api":
		return engine.NewAPI(cfg.APIKeepOpen, cfg.CPUProfile, cfg.MemProfile), nil
	case "git":
		var exclude []string
		if cfg.GitExcludeBuilt {
			// The names turnback ignores at any depth, .git included.
			exclude = append(slices.Clone(ignore.BuiltinDirs), ".git")
		}
		return engine.NewGit(exclude), nil
	case "restic":
		return engine.NewRestic(), nil
	}
	return nil, fmt.Errorf("unknown engine %q (want cli, cli-nowatch, daemon, api, git, restic)", name)
}

// runTrees prepares the trees, in the order given (user trees last), and
// runs the scenarios on each.
func runTrees(ctx context.Context, cfg *report.Config, engines []engine.Engine, res *report.Results) error {
	type treeReq struct{ name, path string }
	var reqs []treeReq
	for _, t := range cfg.Trees {
		reqs = append(reqs, treeReq{name: t})
	}
	for _, p := range cfg.UserTrees {
		reqs = append(reqs, treeReq{path: p})
	}
	for _, rq := range reqs {
		if ctx.Err() != nil {
			break
		}
		start := time.Now()
		t, err := prepareTree(cfg, rq.name, rq.path)
		if err != nil {
			return fmt.Errorf("prepare tree %s: %w", rq.name+rq.path, err)
		}
		if err := t.CheckPristine(Logf); err != nil {
			return fmt.Errorf("tree %s: %w", t.Name, err)
		}
		tr := &report.TreeResult{Name: t.Name, Kind: t.Kind, Dir: t.Dir, Files: t.Files, Dirs: t.Dirs, Links: t.Links, Bytes: t.Bytes,
			PrepSecs: t.PrepSecs, Cached: t.Cached, ReadySecs: time.Since(start).Seconds(), Info: t.Info, Steps: map[string]float64{}}
		res.Trees = append(res.Trees, tr)
		Logf("%s: %d files, %d dirs, %d symlinks, %.1f MB", t.Name, t.Files, t.Dirs, t.Links, float64(t.Bytes)/1e6)
		if cfg.PrepareOnly {
			continue
		}
		if err := runTree(ctx, cfg, t, engines, res, tr); err != nil {
			Logf("%s: %v", t.Name, err)
			tr.Error = err.Error()
		}
		if err := t.CheckPristine(Logf); err != nil {
			return fmt.Errorf("tree %s after the run: %w", t.Name, err)
		}
	}
	return nil
}

// prepareTree prepares the tree named name (go or a file count) or the
// user's folder at path.
func prepareTree(cfg *report.Config, name, path string) (*trees.Tree, error) {
	switch {
	case path != "":
		return trees.User(cfg.CacheDir, path, cfg.InPlace, Logf)
	case name == "go":
		return trees.GoSource(cfg.CacheDir, Logf)
	}
	n, _ := trees.ParseCount(name)
	return trees.Synthetic(cfg.CacheDir, name, n, cfg.Seed, Logf)
}

// buildCLI builds turnback at bin, and turnback-full beside it: its
// watch daemons run turnback-full (internal/fullbin).
func buildCLI(ctx context.Context, bin string) error {
	for _, b := range [][2]string{{bin, "./cmd/turnback"}, {filepath.Join(filepath.Dir(bin), "turnback-full"), "./cmd/turnback-full"}} {
		cmd := exec.CommandContext(ctx, "go", "build", "-o", b[0], b[1])
		cmd.Dir = filepath.Dir(BenchDir())
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as the README installs it
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
	}
	return nil
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return s
}

// machineInfo describes the machine, the tools and the turnback
// revision measured.
func machineInfo() report.Machine {
	m := report.Machine{NProc: runtime.NumCPU(), GoVersion: runtime.Version(), Date: time.Now().UTC().Format(time.RFC3339)}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "MemTotal:") {
				f := strings.Fields(l)
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					m.MemTotal = fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
				}
			}
		}
	}
	if data, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = "Linux " + strings.TrimSpace(string(data))
	}
	if out, err := exec.Command("git", "--version").Output(); err == nil {
		m.Git = firstLine(out)
	}
	root := filepath.Dir(BenchDir())
	if out, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output(); err == nil {
		m.Revision = firstLine(out)
		if st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
			m.Revision += fmt.Sprintf(" + uncommitted changes in %d tracked files", strings.Count(strings.TrimSpace(string(st)), "\n")+1)
		}
	}
	return m
}

func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// writeResults writes the final results and prints the report.
func writeResults(res *report.Results) error {
	md, err := report.Write(res.Config.OutDir, res, false)
	if err != nil {
		return err
	}
	fmt.Print(md)
	cfg := res.Config
	Logf("wrote %s, results.json and chart.svg", filepath.Join(cfg.OutDir, "results.md"))
	if cfg.CPUProfile != "" {
		Logf("CPU profiles of the api engine in %s; e.g. go tool pprof -top %s/<tree>-undo-r*.pprof", cfg.CPUProfile, cfg.CPUProfile)
	}
	return nil
}

// Rerender runs nothing: it merges earlier runs' results.json files and
// writes their report, JSON and chart into cfg.OutDir.
func Rerender(cfg *report.Config, files []string) error {
	out, err := report.Merge(files)
	if err != nil {
		return err
	}
	if out.Config == nil {
		out.Config = cfg
	}
	out.Config.OutDir = cfg.OutDir
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return err
	}
	return writeResults(out)
}
