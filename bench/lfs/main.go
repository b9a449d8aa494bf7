//go:build linux

// Command lfs measures turnback on a Git LFS repository: ten tracked
// files of 50 MB each (issue 14). It times the cold capture (the first
// snap into an empty store) and reports the store's disk use after it
// and after a turn (two files deleted, one rewritten and git-added) and
// its undo, which is checked byte for byte.
//
// Give --before a turnback binary built from an earlier commit to
// compare: a turnback that keeps no references hashes the same files but
// cannot undo their deletion (the undo reports them not restorable).
//
//	go run ./bench/lfs [--before /tmp/turnback-main] [--out bench/results/lfs]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

const (
	nFiles   = 10
	fileSize = 50 << 20
)

type result struct {
	Binary       string  `json:"binary"`
	ColdSecs     float64 `json:"cold_capture_seconds"`
	ColdCPU      float64 `json:"cold_capture_cpu_seconds"`
	StoreCold    int64   `json:"store_bytes_after_cold_capture"`
	TurnSecs     float64 `json:"turn_end_seconds"`
	UndoSecs     float64 `json:"undo_seconds"`
	StoreAfter   int64   `json:"store_bytes_after_undo"`
	UndoExit     int     `json:"undo_exit_code"`
	Restored     bool    `json:"undo_restored_everything"`
	UndoStdout   string  `json:"undo_output"`
	LFSDataBytes int64   `json:"lfs_data_bytes"`
}

func main() {
	before := flag.String("before", "", "also measure this turnback binary (built from an earlier commit)")
	beforeLabel := flag.String("before-label", "before", "its name in the report")
	out := flag.String("out", "", "write results.json and results.md here")
	keep := flag.Bool("keep", false, "keep the scratch directory")
	flag.Parse()
	label = *beforeLabel
	if err := run(*before, *out, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "bench/lfs:", err)
		os.Exit(1)
	}
}

var label string // --before-label

func run(before, out string, keep bool) error {
	scratch, err := os.MkdirTemp("", "turnback-bench-lfs-")
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(scratch)
	}
	after := filepath.Join(scratch, "turnback")
	build := exec.Command("go", "build", "-o", after, "./cmd/turnback")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as the README installs it
	if b, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build (run from the module root): %v\n%s", err, b)
	}
	bins := []string{after}
	if before != "" {
		bins = append([]string{before}, bins...)
	}
	var results []result
	for i, bin := range bins {
		repo := filepath.Join(scratch, fmt.Sprintf("repo%d", i))
		files, err := makeRepo(repo)
		if err != nil {
			return err
		}
		r, err := measure(bin, repo, filepath.Join(scratch, fmt.Sprintf("store%d", i)), files)
		if err != nil {
			return err
		}
		r.Binary = label
		if bin == after {
			r.Binary = "this commit"
		}
		results = append(results, r)
		os.RemoveAll(repo)
	}
	md := report(results)
	fmt.Print(md)
	if out != "" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
		data, _ := json.MarshalIndent(results, "", "  ")
		if err := os.WriteFile(filepath.Join(out, "results.json"), append(data, '\n'), 0o644); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(out, "results.md"), []byte(md), 0o644)
	}
	return nil
}

func git(dir string, args ...string) error {
	cmd := exec.Command("git", append([]string{"-c", "user.name=bench", "-c", "user.email=bench@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	return nil
}

// makeRepo makes a smudged LFS repository of nFiles incompressible files.
func makeRepo(dir string) (map[string][]byte, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for _, args := range [][]string{{"init", "-q"}, {"lfs", "install", "--local"}, {"lfs", "track", "*.bin"}} {
		if err := git(dir, args...); err != nil {
			return nil, err
		}
	}
	files := map[string][]byte{}
	for i := 0; i < nFiles; i++ {
		name := fmt.Sprintf("asset%02d.bin", i)
		files[name] = data(uint64(i), fileSize)
		if err := os.WriteFile(filepath.Join(dir, name), files[name], 0o644); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("assets\n"), 0o644); err != nil {
		return nil, err
	}
	if err := git(dir, "add", "-A"); err != nil {
		return nil, err
	}
	return files, git(dir, "commit", "-q", "-m", "assets")
}

func data(seed uint64, n int) []byte {
	r := rand.NewChaCha8([32]byte{byte(seed), 50})
	b := make([]byte, n)
	_, _ = r.Read(b)
	return b
}

var lastCPU float64 // user+system seconds of the last tb

func tb(bin, dir, store string, args ...string) (string, int, float64, error) {
	syscall.Sync()
	cmd := exec.Command(bin, append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "TURNBACK_STORE="+store, "TURNBACK_AUTO_WATCH=0", "PATH=/nonexistent")
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	start := time.Now()
	err := cmd.Run()
	secs := time.Since(start).Seconds()
	if cmd.ProcessState != nil {
		lastCPU = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code, err = ee.ExitCode(), nil
	}
	return so.String() + se.String(), code, secs, err
}

func measure(bin, repo, store string, files map[string][]byte) (result, error) {
	r := result{LFSDataBytes: nFiles * fileSize}
	outp, code, secs, err := tb(bin, repo, store, "snap")
	if err != nil || code != 0 {
		return r, fmt.Errorf("snap: exit %d %v\n%s", code, err, outp)
	}
	r.ColdSecs, r.ColdCPU, r.StoreCold = secs, lastCPU, du(store)
	// The turn: delete two assets, rewrite one and stage it.
	os.Remove(filepath.Join(repo, "asset00.bin"))
	os.Remove(filepath.Join(repo, "asset01.bin"))
	if err := os.WriteFile(filepath.Join(repo, "asset02.bin"), data(99, fileSize), 0o644); err != nil {
		return r, err
	}
	if err := git(repo, "add", "-A"); err != nil {
		return r, err
	}
	time.Sleep(1100 * time.Millisecond) // not racily clean
	if outp, code, secs, err = tb(bin, repo, store, "end"); err != nil || code != 0 {
		return r, fmt.Errorf("end: exit %d %v\n%s", code, err, outp)
	}
	r.TurnSecs = secs
	if r.UndoStdout, r.UndoExit, r.UndoSecs, err = tb(bin, repo, store, "undo"); err != nil {
		return r, err
	}
	r.StoreAfter = du(store)
	r.Restored = true
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(repo, name))
		if err != nil || !bytes.Equal(got, want) {
			r.Restored = false
		}
	}
	return r, nil
}

// du is the disk use (allocated blocks) of dir.
func du(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				n += st.Blocks * 512
			}
		}
		return nil
	})
	return n
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func report(rs []result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Git LFS repository: %d tracked files of %d MB (%s)\n\n", nFiles, fileSize>>20, mib(nFiles*fileSize))
	b.WriteString("| turnback | cold capture | its CPU | store after it | turn (end) | undo | store after undo | undo exit | undo restored all |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "| %s | %.2f s | %.2f s | %s | %.2f s | %.2f s | %s | %d | %v |\n",
			r.Binary, r.ColdSecs, r.ColdCPU, mib(r.StoreCold), r.TurnSecs, r.UndoSecs, mib(r.StoreAfter), r.UndoExit, r.Restored)
	}
	b.WriteString("\nThe turn deletes two assets and rewrites a third (staged with git add, so Git LFS stores the new version); undo must bring all three back.\n")
	return b.String()
}
