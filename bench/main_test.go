//go:build linux

package main

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

// parse runs the command's flag parsing on args.
func parse(t *testing.T, args ...string) (*flags, *flag.FlagSet) {
	t.Helper()
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := defineFlags(fs, "BENCH")
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return f, fs
}

func TestConfig(t *testing.T) {
	f, fs := parse(t)
	cfg, err := f.config(fs)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Trees, []string{"go", "10k", "100k"}) || cfg.Reps != 5 || cfg.Warmup != 1 || cfg.Settle != 1100*time.Millisecond ||
		!cfg.Sync || cfg.OutDir != "BENCH/out" || cfg.CacheDir != "BENCH/.cache" || len(cfg.Scenarios) != 5 ||
		!slices.Equal(cfg.Engines, []string{"cli", "cli-nowatch", "api", "git", "restic"}) {
		t.Errorf("defaults: %+v", cfg)
	}

	f, fs = parse(t, "--quick")
	cfg, _ = f.config(fs)
	if !slices.Equal(cfg.Trees, []string{"2k"}) || cfg.Reps != 1 || cfg.Warmup != 0 || cfg.Settle != 150*time.Millisecond {
		t.Errorf("--quick: %+v", cfg)
	}
	f, fs = parse(t, "--quick", "--trees", " 10K, go ", "--reps", "3", "--scenarios", "cold,undo", "--no-sync", "--tree", "a", "--tree", "b")
	cfg, _ = f.config(fs)
	if !slices.Equal(cfg.Trees, []string{"10k", "go"}) || cfg.Reps != 3 || cfg.Warmup != 0 || cfg.Sync ||
		!cfg.Scenarios["cold"] || !cfg.Scenarios["undo"] || cfg.Scenarios["turn"] || !slices.Equal(cfg.UserTrees, []string{"a", "b"}) {
		t.Errorf("--quick with flags given: %+v", cfg)
	}

	f, fs = parse(t, "--scenarios", "b2b")
	if cfg, err = f.config(fs); err != nil || len(cfg.Scenarios) != 1 || !cfg.Scenarios["b2b"] {
		t.Errorf("--scenarios b2b: %+v, %v", cfg, err)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--scenarios", "cold,warm"}, `unknown scenario "warm"`},
		{[]string{"--reps", "0"}, "--reps must be at least 1"},
		{[]string{"--warmup", "-1"}, "--warmup at least 0"},
		{[]string{"--trees", "go,huge"}, `unknown tree "huge"`},
	} {
		f, fs := parse(t, tc.args...)
		if _, err := f.config(fs); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}
