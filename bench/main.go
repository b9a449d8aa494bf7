//go:build linux

// Command bench measures turnback against the undo mechanisms AI coding
// agents use today (a shadow git repository; restic when installed) on
// real and synthetic trees. Run it from the module root:
//
//	go run ./bench --help
//	go run ./bench --quick
//	go run ./bench --trees go,10k,100k
//
// See bench/README.md for what each scenario measures.
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// Config is everything the flags say.
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

var allScenarios = []string{"cold", "nochange", "turn", "undo", "size"}

func benchDir() string {
	if _, file, _, ok := runtime.Caller(0); ok {
		d := filepath.Dir(file)
		if _, err := os.Stat(filepath.Join(d, "main.go")); err == nil {
			return d
		}
	}
	return "bench"
}

func main() {
	if os.Getenv(spawnEnv) == "1" {
		os.Exit(spawnHelper())
	}
	bd := benchDir()
	var (
		trees      = flag.String("trees", "go,10k,100k", "comma-separated trees: go (a copy of $(go env GOROOT)/src), or a synthetic monorepo size such as 10k, 100k, 1m (any count works: 2k, 250k)")
		userTrees  listFlag
		inPlace    = flag.Bool("in-place", false, "benchmark --tree folders where they are instead of a scratch copy (the turn is applied to them and undone; the harness puts them back if an engine fails to)")
		engines    = flag.String("engines", "cli,cli-nowatch,api,git,restic", "comma-separated engines: cli (the turnback binary as users get it, process start included: its first capture of a folder of 2000+ files starts a watch daemon in the background, and later commands are forwarded to it; cold capture = that plain snap alone, the daemon's background start-up is waited for untimed and reported apart), cli-nowatch (the same binary with TURNBACK_AUTO_WATCH=0: no daemon, every command reads the tree), daemon (the same binary with a daemon started explicitly: cold capture = watch --detach + first snap, timed together), api (turnback Go API in process), git (shadow git: add -A + write-tree; restore), restic (skipped when not on PATH)")
		scenarios  = flag.String("scenarios", strings.Join(allScenarios, ","), "comma-separated scenarios: cold, nochange, turn, undo, size (turn and undo run together)")
		reps       = flag.Int("reps", 5, "measured repetitions per scenario, tree and engine")
		warmup     = flag.Int("warmup", 1, "unmeasured warm-up repetitions before them")
		out        = flag.String("out", filepath.Join(bd, "out"), "output directory (results.md, results.json, chart.svg)")
		cacheDir   = flag.String("cache-dir", filepath.Join(bd, ".cache"), "where generated and copied trees, the turnback binary and scratch stores live")
		seed       = flag.Uint64("seed", 1, "seed of the synthetic tree generator")
		turnSeed   = flag.Uint64("turn-seed", 1, "seed that picks the turn's files")
		settle     = flag.Duration("settle", 1100*time.Millisecond, "pause before each timed turn capture and undo, so files written just before are not racily clean (git's index has 1 s granularity); an agent's turn lasts longer than this")
		noSync     = flag.Bool("no-sync", false, "do not call sync(2) before each timed operation (by default dirty pages of the previous step are flushed first, untimed)")
		cpuprofile = flag.String("cpuprofile", "", "write a CPU profile (runtime/pprof) of every measured turnback-api operation into this directory, one file per tree, scenario and repetition; merge with: go tool pprof -top DIR/<tree>-<scenario>-r*.pprof")
		memprofile = flag.String("memprofile", "", "write, for every measured turnback-api operation, the heap profile (inuse) taken when its heap was largest into this directory (sampled every 200 ms)")
		keepOpen   = flag.Bool("api-keep-open", false, "the api engine keeps its Repo open between operations (default: Open and Close are part of every operation, so api and cli-nowatch differ by process start only)")
		fullVerify = flag.Bool("verify-full", false, "after each undo re-read every file of the tree (default: re-read files whose inode, ctime or mtime changed, compare everything else by stat)")
		gitExclude = flag.Bool("git-exclude-builtins", false, "give the shadow git repository turnback's built-in ignored directory names (node_modules, build, dist, ...) in info/exclude, so both capture the same files")
		workDir    = flag.String("work-dir", "", "where the engines' stores live during a run, one subdirectory per tree, removed before and after it (default: CACHE-DIR/work)")
		keepStores = flag.Bool("keep-stores", false, "keep the engines' stores in the cache dir after the run")
		prepOnly   = flag.Bool("prepare-only", false, "generate or copy the trees into the cache, verify them, and stop")
		reportFrom = flag.String("report-from", "", "run nothing: re-render results.md, results.json and chart.svg in --out from these comma-separated results.json files (merged: trees and samples of all of them)")
		quick      = flag.Bool("quick", false, "fast smoke run: a 2k synthetic tree (unless --trees is given), 1 repetition, no warm-up, short settle")
	)
	flag.Var(&userTrees, "tree", "also benchmark this folder (repeatable); copied to a scratch dir first unless --in-place")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, `Usage: go run ./bench [flags]

Benchmarks turnback against a shadow git repository (and restic when
installed) on a copy of the Go source tree, synthetic monorepos of any size
and folders you name. turnback runs as:

  cli          the CLI as users get it: a capture of a folder of 2000+ files
               without a daemon starts 'turnback watch' in the background as
               it exits, and later commands are forwarded to it. Its cold
               capture is that first plain snap only: the daemon's background
               start-up (snap exit until ready, and its CPU) is waited for
               untimed and reported apart, NOT included in the cold time.
               Other steps: client time; CPU = client + daemon.
  cli-nowatch  the same CLI with TURNBACK_AUTO_WATCH=0 (no daemon ever: what
               cli measured before daemons started by themselves)
  daemon       the CLI with a daemon started by 'watch --detach' (cold
               capture = watch --detach + first snap, timed together)
  api          the Go API in process

For every tree and engine it measures:

  cold      first capture into an empty store
  nochange  capture of an unchanged tree into a store that has it
  turn      capture after a deterministic turn (20 files modified, 5
            created, 2 deleted)
  undo      undo of that turn; the tree is then verified byte for byte
  size      the store's disk use after the whole sequence

and the peak RSS of every turnback CLI process and of the watch daemons
(cli's and daemon's; VmHWM, read before each is stopped). Engines alternate run by
run; medians and pairwise turnback/git ratios go to OUT/results.md (also
printed), every sample to OUT/results.json, a chart to OUT/chart.svg.

Flags:
`)
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "bench: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	cfg := &Config{
		Trees: splitList(*trees), UserTrees: userTrees, InPlace: *inPlace,
		Engines: splitList(*engines), Scenarios: map[string]bool{},
		Reps: *reps, Warmup: *warmup, OutDir: *out, CacheDir: *cacheDir,
		Seed: *seed, TurnSeed: *turnSeed, Settle: *settle, Sync: !*noSync,
		CPUProfile: *cpuprofile, MemProfile: *memprofile, APIKeepOpen: *keepOpen, FullVerify: *fullVerify,
		GitExcludeBuilt: *gitExclude, KeepStores: *keepStores, WorkDir: *workDir, Quick: *quick, PrepareOnly: *prepOnly,
	}
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if cfg.Quick {
		if !set["trees"] {
			cfg.Trees = []string{"2k"}
		}
		if !set["reps"] {
			cfg.Reps = 1
		}
		if !set["warmup"] {
			cfg.Warmup = 0
		}
		if !set["settle"] {
			cfg.Settle = 150 * time.Millisecond
		}
	}
	for _, s := range splitList(*scenarios) {
		ok := false
		for _, a := range allScenarios {
			ok = ok || a == s
		}
		if !ok {
			fmt.Fprintf(os.Stderr, "bench: unknown scenario %q (want %s)\n", s, strings.Join(allScenarios, ", "))
			os.Exit(2)
		}
		cfg.Scenarios[s] = true
	}
	if cfg.Reps < 1 || cfg.Warmup < 0 {
		fmt.Fprintln(os.Stderr, "bench: --reps must be at least 1 and --warmup at least 0")
		os.Exit(2)
	}
	for _, t := range cfg.Trees {
		if _, ok := parseCount(t); !ok && t != "go" {
			fmt.Fprintf(os.Stderr, "bench: unknown tree %q (want go or a file count like 10k, 100k, 1m)\n", t)
			os.Exit(2)
		}
	}
	if *reportFrom != "" {
		if err := mergeReports(cfg, strings.Split(*reportFrom, ",")); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, strings.ToLower(f))
		}
	}
	return out
}

var runStart = time.Now()

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[%7.1fs] %s\n", time.Since(runStart).Seconds(), fmt.Sprintf(format, args...))
}

func run(ctx context.Context, cfg *Config) error {
	for _, d := range []string{cfg.OutDir, cfg.CacheDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
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
	for _, d := range []string{cfg.CPUProfile, cfg.MemProfile} {
		if d != "" {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
		}
	}
	res := &Results{CLIAutoWatch: true, Machine: machineInfo(), Config: cfg, Started: time.Now().UTC()}
	// Engines stop their watch daemons; this catches any left behind by
	// a run that ended early.
	defer stopAllDaemons()
	res.Machine.LoadStart = loadAvg()

	// Engines.
	var engines []Engine
	for _, name := range cfg.Engines {
		if cfg.PrepareOnly {
			break
		}
		var e Engine
		switch name {
		case "cli", "cli-nowatch", "daemon":
			if cfg.Bin == "" {
				cfg.Bin = filepath.Join(cfg.CacheDir, "bin", "turnback")
				start := time.Now()
				if err := buildCLI(ctx, cfg.Bin); err != nil {
					return fmt.Errorf("build turnback: %w", err)
				}
				res.Machine.BuildSecs = time.Since(start).Seconds()
				logf("built %s in %.1fs", cfg.Bin, res.Machine.BuildSecs)
			}
			switch name {
			case "cli":
				e = newTBAutoCLI(cfg.Bin)
			case "cli-nowatch":
				e = newTBCLINoWatch(cfg.Bin)
			default:
				e = newTBDaemon(cfg.Bin)
			}
		case "api":
			e = &tbAPI{keepOpen: cfg.APIKeepOpen, profDir: cfg.CPUProfile, memProfDir: cfg.MemProfile}
		case "git":
			e = &shadowGit{excludeBuiltins: cfg.GitExcludeBuilt}
		case "restic":
			e = &resticEngine{}
		default:
			return fmt.Errorf("unknown engine %q (want cli, cli-nowatch, daemon, api, git, restic)", name)
		}
		if ok, why := e.Available(); !ok {
			msg := fmt.Sprintf("engine %s skipped: %s", e.Name(), why)
			logf("%s", msg)
			res.Skipped = append(res.Skipped, msg)
			continue
		}
		if r, ok := e.(*resticEngine); ok {
			res.Machine.Restic = r.version
		}
		engines = append(engines, e)
		res.Engines = append(res.Engines, e.Name())
	}
	if len(engines) == 0 && !cfg.PrepareOnly {
		return fmt.Errorf("no engine can run")
	}

	// Trees, in the order given; user trees last.
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
		var t *Tree
		var err error
		start := time.Now()
		switch {
		case rq.path != "":
			t, err = prepareUser(cfg.CacheDir, rq.path, cfg.InPlace, logf)
		case rq.name == "go":
			t, err = prepareGo(cfg.CacheDir, logf)
		default:
			n, _ := parseCount(rq.name)
			t, err = prepareSynthetic(cfg.CacheDir, rq.name, n, cfg.Seed, logf)
		}
		if err != nil {
			return fmt.Errorf("prepare tree %s: %w", rq.name+rq.path, err)
		}
		if err := checkPristine(t, logf); err != nil {
			return fmt.Errorf("tree %s: %w", t.Name, err)
		}
		tr := &TreeResult{Name: t.Name, Kind: t.Kind, Dir: t.Dir, Files: t.Files, Dirs: t.Dirs, Links: t.Links, Bytes: t.Bytes,
			PrepSecs: t.PrepSecs, Cached: t.Cached, ReadySecs: time.Since(start).Seconds(), Info: t.Info, Steps: map[string]float64{}}
		res.Trees = append(res.Trees, tr)
		logf("%s: %d files, %d dirs, %d symlinks, %.1f MB", t.Name, t.Files, t.Dirs, t.Links, float64(t.Bytes)/1e6)
		if cfg.PrepareOnly {
			continue
		}
		err = runTree(ctx, cfg, t, engines, res, tr)
		if err != nil {
			logf("%s: %v", t.Name, err)
			tr.Error = err.Error()
		}
		if err := checkPristine(t, logf); err != nil {
			return fmt.Errorf("tree %s after the run: %w", t.Name, err)
		}
	}
	if cfg.PrepareOnly {
		return nil
	}
	res.Finished = time.Now().UTC()
	res.Machine.LoadEnd = loadAvg()
	return writeResults(cfg, res)
}

func buildCLI(ctx context.Context, bin string) error {
	root := filepath.Dir(benchDir())
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/turnback")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	return nil
}

// runTree runs every selected scenario on one tree, engines alternating
// run by run.
func runTree(ctx context.Context, cfg *Config, t *Tree, engines []Engine, res *Results, tr *TreeResult) error {
	workRoot := cfg.WorkDir
	if workRoot == "" {
		workRoot = filepath.Join(cfg.CacheDir, "work")
	}
	work := filepath.Join(workRoot, sanitize(t.Name))
	if err := os.RemoveAll(work); err != nil {
		return err
	}
	if !cfg.KeepStores {
		defer os.RemoveAll(work)
	}
	defer func() {
		// After every engine's Close (deferred below, so run first):
		// the daemons' peak RSS, read before they were stopped.
		for _, e := range engines {
			if d, ok := e.(*tbDaemon); ok {
				d.Close()
				c := d.result()
				if tr.Daemons == nil {
					tr.Daemons = map[string]*daemonCounts{}
				}
				tr.Daemons[d.Name()] = c
				if !d.auto {
					// The fields of earlier results, kept.
					tr.DaemonPeakRSSKB = c.PeakRSSKB
					tr.Daemon = c
				}
			}
		}
	}()
	live := map[string]bool{}
	for _, e := range engines {
		if err := e.Setup(t, filepath.Join(work, e.Name())); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(work, e.Name()), 0o755); err != nil {
			return err
		}
		live[e.Name()] = true
		defer e.Close()
	}
	total := cfg.Warmup + cfg.Reps
	record := func(scenario string, e Engine, rep int, op Op, err error) *Sample {
		s := &Sample{Tree: t.Name, TreeFiles: t.Files, Scenario: scenario, Engine: e.Name(), Rep: rep - cfg.Warmup, Warmup: rep < cfg.Warmup,
			Seconds: op.Dur.Seconds(), MaxRSSKB: op.MaxRSSKB, CPUSeconds: op.CPU.Seconds(), ForeignCPU: op.Foreign, Procs: op.Procs, Info: op.Info, OK: err == nil}
		if err != nil {
			s.Error = err.Error()
			logf("%s %s %s rep %d: FAILED: %v", t.Name, scenario, e.Name(), rep, err)
		}
		res.Samples = append(res.Samples, s)
		noteRSS(tr, e, op)
		return s
	}
	prep := func(settle bool) {
		if cfg.Sync {
			syscall.Sync()
		}
		if settle {
			time.Sleep(cfg.Settle)
		}
	}
	step := func(name string, start time.Time) {
		tr.Steps[name] += time.Since(start).Seconds()
		logf("%s: %s done in %.1fs", t.Name, name, time.Since(start).Seconds())
		res.Finished = time.Now().UTC()
		if err := saveResults(cfg, res, false); err != nil {
			logf("saving partial results: %v", err)
		}
	}

	// Read every file once (untimed) so that the first measured capture
	// does not pay for a cold page cache when there is no warm-up.
	start := time.Now()
	if err := prewarm(t.Dir); err != nil {
		return err
	}
	logf("%s: page cache warmed in %.1fs", t.Name, time.Since(start).Seconds())

	// Cold capture: a fresh empty store per repetition.
	start = time.Now()
	for rep := 0; rep < total && cfg.Scenarios["cold"]; rep++ {
		for _, e := range engines {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err := e.Fresh(); err != nil {
				return err
			}
			prep(false)
			op, err := e.Capture(ctx, phCold, rep)
			s := record("cold", e, rep, op, err)
			logf("%s cold %s rep %d: %.3fs", t.Name, e.Name(), rep, s.Seconds)
		}
	}
	if !cfg.Scenarios["cold"] {
		for _, e := range engines {
			if err := e.Fresh(); err != nil {
				return err
			}
			op, err := e.Capture(ctx, phCold, -1)
			noteRSS(tr, e, op)
			// Not a measured sample, but the daemon's start-up time
			// is worth reporting.
			if tr.FirstCapture == nil {
				tr.FirstCapture = map[string]*Sample{}
			}
			tr.FirstCapture[e.Name()] = &Sample{Tree: t.Name, TreeFiles: t.Files, Scenario: "cold", Engine: e.Name(), Rep: -1, Warmup: true,
				Seconds: op.Dur.Seconds(), MaxRSSKB: op.MaxRSSKB, CPUSeconds: op.CPU.Seconds(), ForeignCPU: op.Foreign, Procs: op.Procs, Info: op.Info, OK: err == nil}
			logf("%s first capture (untimed setup) %s: %.1fs", t.Name, e.Name(), op.Dur.Seconds())
			if err != nil {
				return fmt.Errorf("%s: first capture: %w", e.Name(), err)
			}
		}
	}
	// An engine whose last cold capture failed has no usable store.
	for _, s := range res.Samples {
		if s.Tree == t.Name && s.Scenario == "cold" && s.Rep == cfg.Reps-1 && !s.OK {
			live[s.Engine] = false
		}
	}
	step("cold", start)
	for _, e := range engines {
		if g, ok := e.(*shadowGit); ok && live[e.Name()] {
			tr.GitFiles = g.fileCount(ctx)
		}
	}

	// No-change capture.
	start = time.Now()
	for rep := 0; rep < total && cfg.Scenarios["nochange"]; rep++ {
		for _, e := range engines {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if !live[e.Name()] {
				continue
			}
			prep(false)
			op, err := e.Capture(ctx, phNoChange, rep)
			s := record("nochange", e, rep, op, err)
			if s.OK && e.Name() == "turnback-cli" {
				if v, ok := op.Info["files"].(float64); ok {
					tr.TurnbackFiles = int(v)
				}
			}
			logf("%s nochange %s rep %d: %.3fs", t.Name, e.Name(), rep, s.Seconds)
		}
	}
	if cfg.Scenarios["nochange"] {
		step("nochange", start)
	}

	// Turn capture and undo.
	if cfg.Scenarios["turn"] || cfg.Scenarios["undo"] {
		start = time.Now()
		cands, err := turnCandidates(ctx, t, work)
		if err != nil {
			return err
		}
		turn, err := planTurn(t, cands, cfg.TurnSeed)
		if err != nil {
			return err
		}
		tr.Turn = map[string]any{"modified": turn.Modified, "created": turn.Created, "deleted": turn.Deleted, "candidates": len(cands)}
		defer func() {
			// Whatever happened, leave the tree as it was.
			if v, err := verify(t.Dir, t.Manifest, false); err == nil && v.Count > 0 {
				turn.Reset(t.Dir)
			}
		}()
		for rep := 0; rep < total; rep++ {
			for _, e := range engines {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if !live[e.Name()] {
					continue
				}
				prep(true)
				op, err := e.Capture(ctx, phBefore, rep)
				noteRSS(tr, e, op)
				if err != nil {
					record("turn", e, rep, op, fmt.Errorf("before-state capture: %w", err))
					continue
				}
				if err := turn.Apply(t.Dir); err != nil {
					return fmt.Errorf("apply turn: %w", err)
				}
				prep(true)
				op, err = e.Capture(ctx, phTurn, rep)
				s := record("turn", e, rep, op, err)
				if err != nil {
					if err := restoreTree(t, turn); err != nil {
						return err
					}
					continue
				}
				prep(true)
				op, err = e.Undo(ctx, rep)
				u := record("undo", e, rep, op, err)
				vstart := time.Now()
				v, verr := verify(t.Dir, t.Manifest, cfg.FullVerify)
				u.VerifySeconds = time.Since(vstart).Seconds()
				switch {
				case verr != nil:
					return fmt.Errorf("verify: %w", verr)
				case v.Count == 0:
					u.Verify = "ok"
				default:
					u.Verify = fmt.Sprintf("%d paths differ: %s", v.Count, strings.Join(v.Mismatches[:min(8, len(v.Mismatches))], "; "))
					u.OK = false
					logf("%s undo %s rep %d: TREE DIFFERS after undo: %s", t.Name, e.Name(), rep, u.Verify)
					if err := restoreTree(t, turn); err != nil {
						return err
					}
				}
				logf("%s turn %s rep %d: capture %.3fs, undo %.3fs, verify %s (%.1fs, %d re-read)", t.Name, e.Name(), rep, s.Seconds, u.Seconds, u.Verify, u.VerifySeconds, v.Rehashed)
			}
		}
		step("turn+undo", start)
	}

	// Store size after the sequence.
	if cfg.Scenarios["size"] {
		if cfg.Sync {
			syscall.Sync()
		}
		for _, e := range engines {
			if !live[e.Name()] {
				continue
			}
			e.Close()
			n, err := duBytes(e.StoreDir())
			s := &Sample{Tree: t.Name, TreeFiles: t.Files, Scenario: "size", Engine: e.Name(), Bytes: n, OK: err == nil}
			if err != nil {
				s.Error = err.Error()
			}
			res.Samples = append(res.Samples, s)
			logf("%s size %s: %.1f MB", t.Name, e.Name(), float64(n)/1e6)
		}
	}
	return t.saveManifest()
}

// restoreTree puts the tree back after an engine failed to.
func restoreTree(t *Tree, turn *Turn) error {
	if err := turn.Reset(t.Dir); err != nil {
		return fmt.Errorf("reset turn: %w", err)
	}
	if err := repair(t.Dir, t.Manifest, t.Source); err != nil {
		return fmt.Errorf("repair tree: %w", err)
	}
	return nil
}

// noteRSS notes the peak RSS of the turnback CLI processes (the clients;
// the daemons' peak is read from /proc by their engines).
func noteRSS(tr *TreeResult, e Engine, op Op) {
	if cliEngine(e.Name()) && op.MaxRSSKB > tr.CLIPeakRSSKB {
		tr.CLIPeakRSSKB = op.MaxRSSKB
	}
}

// cliEngine says whether engine runs turnback CLI processes.
func cliEngine(engine string) bool {
	switch engine {
	case "turnback-cli", "turnback-cli-nowatch", "turnback-daemon":
		return true
	}
	return false
}

// prewarm reads every regular file of the tree once.
func prewarm(root string) error {
	buf := sync.Pool{New: func() any { b := make([]byte, 1<<20); return &b }}
	return walkTree(root, 0, func(rel string, fi fs.FileInfo) error {
		if !fi.Mode().IsRegular() {
			return nil
		}
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return nil
		}
		defer f.Close()
		b := buf.Get().(*[]byte)
		defer buf.Put(b)
		for {
			if _, err := f.Read(*b); err != nil {
				return nil
			}
		}
	})
}
