//go:build linux

// Command bench measures turnback against the undo mechanisms AI coding
// agents use today (a shadow git repository; restic when installed) on
// real and synthetic trees. Run it from the module root:
//
//	go run ./bench --help
//	go run ./bench --quick
//	go run ./bench --trees go,10k,100k
//
// See bench/README.md for what each scenario measures. This file parses
// the flags; the packages below bench/ do the work: harness (the run),
// engine (what is measured), gen (synthetic trees and the turn), trees
// (the tree cache), truth (ground truth and verification) and report
// (results, report and chart).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/turnback/turnback/bench/engine"
	"github.com/turnback/turnback/bench/harness"
	"github.com/turnback/turnback/bench/report"
	"github.com/turnback/turnback/bench/trees"
)

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// usage is what --help prints before the flags.
const usage = `Usage: go run ./bench [flags]

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

Not run by default (--scenarios b2b,first):

  b2b       back-to-back: cold, no-change, turn capture and undo one right
            after the other on the cached tree (cli, cli-nowatch, git)
  first     first captures without a daemon (cli-nowatch and git only):
            per repetition and engine a fresh 'cp -a' copy of the tree
            (of GOROOT/src for the go tree), then at once the cold
            capture, a no-change capture, the turn and its undo, each
            timed; the engines alternate, so each repetition is a pair

and the peak RSS of every turnback CLI process and of the watch daemons
(cli's and daemon's; VmHWM, read before each is stopped). Engines alternate run by
run; medians and pairwise turnback/git ratios go to OUT/results.md (also
printed), every sample to OUT/results.json, a chart to OUT/chart.svg.

Flags:
`

// flags are the command's flags, before they are checked.
type flags struct {
	userTrees  listFlag
	trees      *string
	inPlace    *bool
	engines    *string
	scenarios  *string
	reps       *int
	warmup     *int
	out        *string
	cacheDir   *string
	seed       *uint64
	turnSeed   *uint64
	settle     *time.Duration
	noSync     *bool
	rewarm     *bool
	cpuprofile *string
	memprofile *string
	keepOpen   *bool
	fullVerify *bool
	gitExclude *bool
	workDir    *string
	keepStores *bool
	prepOnly   *bool
	reportFrom *string
	quick      *bool
}

// defineFlags declares the flags on fs; bd is the bench directory
// (defaults of --out and --cache-dir).
func defineFlags(fs *flag.FlagSet, bd string) *flags {
	f := &flags{
		trees:      fs.String("trees", "go,10k,100k", "comma-separated trees: go (a copy of $(go env GOROOT)/src), or a synthetic monorepo size such as 10k, 100k, 1m (any count works: 2k, 250k)"),
		inPlace:    fs.Bool("in-place", false, "benchmark --tree folders where they are instead of a scratch copy (the turn is applied to them and undone; the harness puts them back if an engine fails to)"),
		engines:    fs.String("engines", "cli,cli-nowatch,api,git,restic", "comma-separated engines: cli (the turnback binary as users get it, process start included: its first capture of a folder of 2000+ files starts a watch daemon in the background, and later commands are forwarded to it; cold capture = that plain snap alone, the daemon's background start-up is waited for untimed and reported apart), cli-nowatch (the same binary with TURNBACK_AUTO_WATCH=0: no daemon, every command reads the tree), daemon (the same binary with a daemon started explicitly: cold capture = watch --detach + first snap, timed together), api (turnback Go API in process), git (shadow git: add -A + write-tree; restore), restic (skipped when not on PATH)"),
		scenarios:  fs.String("scenarios", strings.Join(report.Scenarios, ","), "comma-separated scenarios: cold, nochange, turn, undo, size (turn and undo run together); b2b (back-to-back: cold, no-change, turn capture and undo one right after the other; not run by default); first (first captures of a fresh cp -a copy without a daemon: cold, no-change, turn, undo; cli-nowatch and git; not run by default)"),
		reps:       fs.Int("reps", 5, "measured repetitions per scenario, tree and engine"),
		warmup:     fs.Int("warmup", 1, "unmeasured warm-up repetitions before them"),
		out:        fs.String("out", filepath.Join(bd, "out"), "output directory (results.md, results.json, chart.svg)"),
		cacheDir:   fs.String("cache-dir", filepath.Join(bd, ".cache"), "where generated and copied trees, the turnback binary and scratch stores live"),
		seed:       fs.Uint64("seed", 1, "seed of the synthetic tree generator"),
		turnSeed:   fs.Uint64("turn-seed", 1, "seed that picks the turn's files"),
		settle:     fs.Duration("settle", 1100*time.Millisecond, "pause before each timed turn capture and undo, so files written just before are not racily clean (git's index has 1 s granularity); an agent's turn lasts longer than this"),
		noSync:     fs.Bool("no-sync", false, "do not call sync(2) before each timed operation (by default dirty pages of the previous step are flushed first, untimed)"),
		rewarm:     fs.Bool("rewarm", false, "before each cold capture, untimed: drop the page cache (when root) and read the whole tree again, so that each engine's starts with the tree in the cache and nothing else (on a tree near the cache's size, what the engine before wrote pushes part of the tree out)"),
		cpuprofile: fs.String("cpuprofile", "", "write a CPU profile (runtime/pprof) of every measured turnback-api operation into this directory, one file per tree, scenario and repetition; merge with: go tool pprof -top DIR/<tree>-<scenario>-r*.pprof"),
		memprofile: fs.String("memprofile", "", "write, for every measured turnback-api operation, the heap profile (inuse) taken when its heap was largest into this directory (sampled every 200 ms)"),
		keepOpen:   fs.Bool("api-keep-open", false, "the api engine keeps its Repo open between operations (default: Open and Close are part of every operation, so api and cli-nowatch differ by process start only)"),
		fullVerify: fs.Bool("verify-full", false, "after each undo re-read every file of the tree (default: re-read files whose inode, ctime or mtime changed, compare everything else by stat)"),
		gitExclude: fs.Bool("git-exclude-builtins", false, "give the shadow git repository turnback's built-in ignored directory names (node_modules, build, dist, ...) in info/exclude, so both capture the same files"),
		workDir:    fs.String("work-dir", "", "where the engines' stores live during a run, one subdirectory per tree, removed before and after it (default: CACHE-DIR/work)"),
		keepStores: fs.Bool("keep-stores", false, "keep the engines' stores in the cache dir after the run"),
		prepOnly:   fs.Bool("prepare-only", false, "generate or copy the trees into the cache, verify them, and stop"),
		reportFrom: fs.String("report-from", "", "run nothing: re-render results.md, results.json and chart.svg in --out from these comma-separated results.json files (merged: trees and samples of all of them)"),
		quick:      fs.Bool("quick", false, "fast smoke run: a 2k synthetic tree (unless --trees is given), 1 repetition, no warm-up, short settle"),
	}
	fs.Var(&f.userTrees, "tree", "also benchmark this folder (repeatable); copied to a scratch dir first unless --in-place")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	return f
}

func main() {
	if os.Getenv(engine.SpawnEnv) == "1" {
		os.Exit(engine.SpawnHelper())
	}
	f := defineFlags(flag.CommandLine, harness.BenchDir())
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "bench: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	cfg, err := f.config(flag.CommandLine)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if *f.reportFrom != "" {
		if err := harness.Rerender(cfg, strings.Split(*f.reportFrom, ",")); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := harness.Run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// config checks the flags, once fs parsed them, and makes the run's
// configuration.
func (f *flags) config(fs *flag.FlagSet) (*report.Config, error) {
	cfg := &report.Config{
		Trees: splitList(*f.trees), UserTrees: f.userTrees, InPlace: *f.inPlace,
		Engines: splitList(*f.engines), Scenarios: map[string]bool{},
		Reps: *f.reps, Warmup: *f.warmup, OutDir: *f.out, CacheDir: *f.cacheDir,
		Seed: *f.seed, TurnSeed: *f.turnSeed, Settle: *f.settle, Sync: !*f.noSync, Rewarm: *f.rewarm,
		CPUProfile: *f.cpuprofile, MemProfile: *f.memprofile, APIKeepOpen: *f.keepOpen, FullVerify: *f.fullVerify,
		GitExcludeBuilt: *f.gitExclude, KeepStores: *f.keepStores, WorkDir: *f.workDir, Quick: *f.quick, PrepareOnly: *f.prepOnly,
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
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
	for _, s := range splitList(*f.scenarios) {
		if !slices.Contains(report.Scenarios, s) && !slices.Contains(report.Optional, s) {
			return nil, fmt.Errorf("unknown scenario %q (want %s)", s, strings.Join(append(slices.Clone(report.Scenarios), report.Optional...), ", "))
		}
		cfg.Scenarios[s] = true
	}
	if cfg.Reps < 1 || cfg.Warmup < 0 {
		return nil, fmt.Errorf("--reps must be at least 1 and --warmup at least 0")
	}
	for _, t := range cfg.Trees {
		if _, ok := trees.ParseCount(t); !ok && t != "go" {
			return nil, fmt.Errorf("unknown tree %q (want go or a file count like 10k, 100k, 1m)", t)
		}
	}
	return cfg, nil
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
