//go:build linux

// Command remote measures turnback's remote (issue 20) against a real
// S3 server on loopback (versitygw, posix backend, in a scratch
// folder): the push of a first snapshot of a copy of the Go source
// tree, the push of one 27-path turn (20 files edited, 4 added, 3
// deleted), and a clone of the session into an empty folder on another
// store, which restores the newest state; the clone is then compared
// with the source folder byte for byte. It reports times, objects,
// packs, requests and bytes sent and received, and the bucket's size.
//
//	go run ./bench/remote [--versitygw PATH] [--out DIR] [--cache-dir bench/.cache]
//
// versitygw: --versitygw, else $TURNBACK_TEST_VERSITYGW, else on PATH
// (go install github.com/versity/versitygw/cmd/versitygw@v1.8.0).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/bench/trees"
	"github.com/turnback/turnback/cas/s3"
	"github.com/turnback/turnback/internal/remote"
)

// step is one measured operation.
type step struct {
	Name          string  `json:"name"`
	Seconds       float64 `json:"seconds"`
	Objects       int     `json:"objects"`
	Packs         int     `json:"packs,omitempty"`
	Requests      int64   `json:"requests"`
	BytesSent     int64   `json:"bytes_sent"`
	BytesReceived int64   `json:"bytes_received"`
	Deduplicated  int64   `json:"bytes_deduplicated,omitempty"`
}

type results struct {
	Tree        string `json:"tree"`
	Files       int    `json:"files"`
	Bytes       int64  `json:"bytes"`
	Steps       []step `json:"steps"`
	BucketBytes int64  `json:"bucket_bytes"`
	Objects     int    `json:"bucket_objects"`
	Exact       bool   `json:"clone_exact"`
	// Differ lists the paths where the clone differs from the source.
	Differ []string `json:"differ,omitempty"`
}

func main() {
	vgw := flag.String("versitygw", os.Getenv("TURNBACK_TEST_VERSITYGW"), "the versitygw program")
	out := flag.String("out", "", "write results.json and results.md here")
	cache := flag.String("cache-dir", filepath.Join("bench", ".cache"), "where the copy of the Go tree is kept")
	flag.Parse()
	res, err := run(context.Background(), *vgw, *cache)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/remote:", err)
		os.Exit(1)
	}
	md := markdown(res)
	fmt.Print(md)
	if *out != "" {
		data, _ := json.MarshalIndent(res, "", "  ")
		if err := errors.Join(os.MkdirAll(*out, 0o755), os.WriteFile(filepath.Join(*out, "results.json"), data, 0o644),
			os.WriteFile(filepath.Join(*out, "results.md"), []byte(md), 0o644)); err != nil {
			fmt.Fprintln(os.Stderr, "bench/remote:", err)
			os.Exit(1)
		}
	}
	if !res.Exact {
		os.Exit(1)
	}
}

func run(ctx context.Context, vgw, cache string) (*results, error) {
	if vgw == "" {
		p, err := exec.LookPath("versitygw")
		if err != nil {
			return nil, errors.New("versitygw not found: go install github.com/versity/versitygw/cmd/versitygw@v1.8.0, or --versitygw")
		}
		vgw = p
	}
	scratch, err := os.MkdirTemp("", "turnback-bench-remote-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	src, err := trees.GoSource(cache, func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) })
	if err != nil {
		return nil, err
	}
	work := filepath.Join(scratch, "a")
	if out, err := exec.Command("cp", "-a", src.Dir, work).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("copy %s: %v: %s", src.Dir, err, out)
	}
	endpoint, stop, err := startServer(vgw, filepath.Join(scratch, "s3"))
	if err != nil {
		return nil, err
	}
	defer stop()
	cfg := s3.Config{URL: "s3://bench/turnback", Endpoint: endpoint, Region: "us-east-1", AccessKey: "bench", SecretKey: "benchsecret"}
	c, err := s3.New(cfg)
	if err != nil {
		return nil, err
	}
	if err := c.CheckBucket(ctx, true, cfg.Region); err != nil {
		return nil, err
	}
	res := &results{Tree: "go", Files: src.Files, Bytes: src.Bytes}
	r, err := turnback.Open(ctx, work, turnback.Options{Store: filepath.Join(scratch, "store-a"), Session: "bench"})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if _, err := r.Snap(ctx, "first"); err != nil {
		return nil, err
	}
	push := func(name string) error {
		start := time.Now()
		p, err := remote.Push(ctx, r, c, remote.PushOptions{})
		if err != nil {
			return err
		}
		res.Steps = append(res.Steps, step{Name: name, Seconds: time.Since(start).Seconds(), Objects: p.Objects, Packs: p.Packs,
			Requests: p.Requests, BytesSent: p.BytesSent, Deduplicated: p.BytesDeduplicated})
		return nil
	}
	if err := push("push first snapshot"); err != nil {
		return nil, err
	}
	if err := turn27(work); err != nil {
		return nil, err
	}
	end, err := r.End(ctx)
	if err != nil {
		return nil, err
	}
	snap, err := r.Show(ctx, end.Snapshot.String())
	if err != nil {
		return nil, err
	}
	if err := push("push 27-path turn"); err != nil {
		return nil, err
	}
	cb, _ := s3.New(cfg)
	start := time.Now()
	cl, err := remote.Clone(ctx, cb, cfg, filepath.Join(scratch, "b"), turnback.Options{Store: filepath.Join(scratch, "store-b"), Session: "bench"})
	if err != nil {
		return nil, err
	}
	res.Steps = append(res.Steps, step{Name: "clone: pull", Seconds: cl.PullSeconds},
		step{Name: "clone: restore", Seconds: cl.RestoreSeconds})
	res.Steps = append(res.Steps, step{Name: "clone + restore", Seconds: time.Since(start).Seconds(), Objects: cl.Pull.Objects,
		Requests: cb.Requests.Load(), BytesReceived: cb.Received.Load()})
	objs, err := c.List(ctx, "")
	if err != nil {
		return nil, err
	}
	for _, o := range objs {
		res.BucketBytes += o.Size
	}
	res.Objects = len(objs)
	all, err := readTree(work)
	if err != nil {
		return nil, err
	}
	// What the snapshot holds: ignored paths (cmd/dist: "dist" is
	// ignored by default) are neither captured nor cloned.
	a := map[string]string{}
	for _, e := range snap.Entries {
		p := filepath.FromSlash(e.Path)
		a[p] = all[p]
	}
	b, err := readTree(filepath.Join(scratch, "b"))
	if err != nil {
		return nil, err
	}
	for p, v := range a {
		if b[p] != v {
			res.Differ = append(res.Differ, p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			res.Differ = append(res.Differ, p)
		}
	}
	sort.Strings(res.Differ)
	res.Exact = len(res.Differ) == 0
	return res, nil
}

// turn27 changes 27 paths: 20 .go files get a line, 4 files are added,
// 3 deleted (the first files of their kind in name order).
func turn27(dir string) error {
	var goFiles []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasSuffix(p, ".go") && !strings.Contains(p, "testdata") {
			goFiles = append(goFiles, p)
		}
		return err
	})
	if err != nil {
		return err
	}
	if len(goFiles) < 23 {
		return fmt.Errorf("only %d .go files", len(goFiles))
	}
	sort.Strings(goFiles)
	for i, p := range goFiles[:20] {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(f, "\n// turn edit %d\n", i)
		if err := errors.Join(err, f.Close()); err != nil {
			return err
		}
	}
	for i := range 4 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("bench_added_%d.go", i)), []byte(fmt.Sprintf("package x // %d\n", i)), 0o644); err != nil {
			return err
		}
	}
	for _, p := range goFiles[20:23] {
		if err := os.Remove(p); err != nil {
			return err
		}
	}
	return nil
}

// readTree maps every path under dir to its mode and content (or
// symlink target).
func readTree(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err // the root's own mode is the scratch folder's
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			t, err := os.Readlink(p)
			out[rel] = "link " + t
			return err
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			out[rel] = info.Mode().String() + " " + string(data)
			return err
		default:
			out[rel] = info.Mode().String()
		}
		return nil
	})
	return out, err
}

// startServer starts versitygw on a free loopback port with a posix
// backend in root, and waits until it listens.
func startServer(bin, root string) (endpoint string, stop func(), err error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	var log bytes.Buffer
	cmd := exec.Command(bin, "--access", "bench", "--secret", "benchsecret", "--region", "us-east-1", "--port", addr, "posix", root)
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop = func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return "http://" + addr, stop, nil
		}
		if time.Now().After(deadline) {
			stop()
			return "", nil, fmt.Errorf("versitygw did not listen on %s: %s", addr, log.String())
		}
	}
}

func markdown(r *results) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# turnback remote: %s tree, %d files, %.1f MB\n\n", r.Tree, r.Files, float64(r.Bytes)/1e6)
	fmt.Fprintf(&b, "| step | seconds | objects | packs | requests | MB sent | MB received | MB deduplicated |\n|---|---|---|---|---|---|---|---|\n")
	for _, s := range r.Steps {
		fmt.Fprintf(&b, "| %s | %.2f | %d | %d | %d | %.2f | %.2f | %.2f |\n", s.Name, s.Seconds, s.Objects, s.Packs, s.Requests,
			float64(s.BytesSent)/1e6, float64(s.BytesReceived)/1e6, float64(s.Deduplicated)/1e6)
	}
	fmt.Fprintf(&b, "\nbucket: %d objects, %.2f MB; clone identical to the source: %v\n", r.Objects, float64(r.BucketBytes)/1e6, r.Exact)
	for i, p := range r.Differ {
		if i == 10 {
			fmt.Fprintf(&b, "... %d more\n", len(r.Differ)-10)
			break
		}
		fmt.Fprintf(&b, "differs: %s\n", p)
	}
	return b.String()
}
