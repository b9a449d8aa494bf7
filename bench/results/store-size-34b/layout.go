//go:build ignore

// 'go run layout.go DIR': the stored size of DIR's distinct files under
// block layouts (files up to 64 KiB in blocks of 64-128 KiB, the rest
// one frame each), with and without a trained dictionary, in walk order
// or grouped by extension.
package main

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/klauspost/compress/dict"
	"github.com/klauspost/compress/zstd"
)

type file struct {
	path string
	data []byte
}

const memberMax, blockTarget = 64 << 10, 64 << 10

func main() {
	root := os.Args[1]
	var files []file
	seen := map[string]bool{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		fi, _ := d.Info()
		if fi.Size() == 0 || fi.Size() > 10<<20 {
			return nil
		}
		b, _ := os.ReadFile(p)
		if seen[string(b)] {
			return nil
		}
		seen[string(b)] = true
		files = append(files, file{p, b})
		return nil
	})
	var raw, smallRaw int64
	var small [][]byte
	for _, f := range files {
		raw += int64(len(f.data))
		if len(f.data) <= memberMax {
			smallRaw += int64(len(f.data))
			small = append(small, f.data)
		}
	}
	fmt.Printf("files %d raw %d small %d (%d bytes)\n", len(files), raw, len(small), smallRaw)
	only := ""
	if len(os.Args) > 2 {
		only = os.Args[2]
	}
	largeLevel := zstd.SpeedDefault
	groupDir := false
	run := func(name string, lv zstd.EncoderLevel, byExt bool, d []byte, dictLarge bool) {
		if only != "" && !strings.Contains(name, only) {
			return
		}
		opts := []zstd.EOption{zstd.WithEncoderLevel(lv), zstd.WithWindowSize(8 << 20), zstd.WithEncoderCRC(false), zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true)}
		dopts := []zstd.DOption{zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(16 << 20)}
		if d != nil {
			opts = append(opts, zstd.WithEncoderDict(d))
			dopts = append(dopts, zstd.WithDecoderDicts(d))
		}
		enc, err := zstd.NewWriter(nil, opts...)
		if err != nil {
			panic(err)
		}
		largeOpts := []zstd.EOption{zstd.WithEncoderLevel(largeLevel), zstd.WithWindowSize(1 << 20), zstd.WithEncoderCRC(false), zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true)}
		if dictLarge && d != nil {
			largeOpts = append(largeOpts, zstd.WithEncoderDict(d))
		}
		encL, _ := zstd.NewWriter(nil, largeOpts...)
		dec, _ := zstd.NewReader(nil, dopts...)
		var blocks, large int64
		var enct time.Duration
		var frames [][]byte
		cur := map[string][]byte{}
		last := map[string]int{}
		seq := 0
		flush := func(k string) {
			if len(cur[k]) == 0 {
				return
			}
			t := time.Now()
			out := enc.EncodeAll(cur[k], nil)
			enct += time.Since(t)
			n := len(out)
			if n >= len(cur[k])-len(cur[k])/32 {
				n = len(cur[k])
			} else {
				frames = append(frames, out)
			}
			blocks += int64(n) + 1
			cur[k] = nil
		}
		for _, f := range files {
			if len(f.data) > memberMax {
				t := time.Now()
				out := encL.EncodeAll(f.data, nil)
				enct += time.Since(t)
				n := len(out)
				if n >= len(f.data)-len(f.data)/32 {
					n = len(f.data)
				}
				large += int64(n) + 1
				continue
			}
			k := ""
			if groupDir {
				k = filepath.Dir(f.path)
				if cur[k] == nil && len(cur) >= 32 {
					// evict the group appended to longest ago
					old, oldAt := "", int(^uint(0)>>1)
					for g := range cur {
						if g != "spill" && last[g] < oldAt {
							old, oldAt = g, last[g]
						}
					}
					cur["spill"] = append(cur["spill"], cur[old]...)
					delete(cur, old)
					if len(cur["spill"]) >= blockTarget {
						flush("spill")
						delete(cur, "spill")
					}
				}
				last[k] = seq
				seq++
			}
			if byExt {
				k = filepath.Ext(f.path)
				if len(cur) > 16 && cur[k] == nil {
					k = "other"
				}
			}
			cur[k] = append(cur[k], f.data...)
			if len(cur[k]) >= blockTarget {
				flush(k)
				if groupDir {
					delete(cur, k)
				}
			}
		}
		for k := range cur {
			flush(k)
		}
		t := time.Now()
		for _, b := range frames {
			if _, err := dec.DecodeAll(b, nil); err != nil {
				panic(err)
			}
		}
		dt := time.Since(t) / time.Duration(max(1, len(frames)))
		tot := blocks + large + int64(len(d))
		fmt.Printf("%-28s blocks %10d large %10d dict %7d total %10d (%.4f) enc %v dec/block %v\n", name, blocks, large, len(d), tot, float64(tot)/float64(raw), enct.Round(time.Millisecond), dt)
	}
	sizes := []int{64 << 10, 112 << 10, 256 << 10, 1 << 20}
	if os.Getenv("SIZES") == "big" {
		sizes = []int{1 << 20, 4 << 20}
	}
	run("base", zstd.SpeedDefault, false, nil, false)
	run("ext", zstd.SpeedDefault, true, nil, false)
	// Files arrive from 16 workers, not in walk order: shuffle within
	// windows of w files to see what locality is worth.
	for _, w := range []int{16, 64, 256} {
		if only != "" && !strings.Contains("shuffle", only) {
			break
		}
		orig := files
		files = append([]file(nil), orig...)
		rng := rand.New(rand.NewPCG(1, uint64(w)))
		for i := 0; i < len(files); i += w {
			part := files[i:min(len(files), i+w)]
			rng.Shuffle(len(part), func(a, b int) { part[a], part[b] = part[b], part[a] })
		}
		run(fmt.Sprintf("shuffle%d", w), zstd.SpeedDefault, false, nil, false)
		groupDir = true
		run(fmt.Sprintf("shuffle%d+dirgroups", w), zstd.SpeedDefault, false, nil, false)
		groupDir = false
		files = orig
	}
	run("better", zstd.SpeedBetterCompression, false, nil, false)
	largeLevel = zstd.SpeedBetterCompression
	run("largebetter", zstd.SpeedDefault, false, nil, false)
	largeLevel = zstd.SpeedBestCompression
	run("largebest", zstd.SpeedDefault, false, nil, false)
	largeLevel = zstd.SpeedDefault
	for _, size := range sizes {
		if only != "" && !strings.Contains(only, "dict") {
			break
		}
		var samples [][]byte
		step := max(1, len(small)/2000)
		for i := 0; i < len(small); i += step {
			samples = append(samples, small[i])
		}
		t := time.Now()
		d, err := func() (d []byte, err error) {
			if only == "histdict" {
				return nil, fmt.Errorf("skipped")
			}
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			return dict.BuildZstdDict(samples, dict.Options{MaxDictSize: size, HashBytes: 6, ZstdDictID: 1, ZstdLevel: zstd.SpeedDefault})
		}()
		fmt.Printf("dict %dK from %d samples: %v, %d bytes, err %v\n", size>>10, len(samples), time.Since(t).Round(time.Millisecond), len(d), err)
		if err == nil {
			run(fmt.Sprintf("dict%dK", size>>10), zstd.SpeedDefault, false, d, false)
			run(fmt.Sprintf("dict%dK+large", size>>10), zstd.SpeedDefault, false, d, true)
		}
		// A plain history: sampled files concatenated.
		var hist []byte
		for i := 0; i < len(small) && len(hist) < size; i += step {
			hist = append(hist, small[i][:min(len(small[i]), 4096)]...)
		}
		hist = hist[:min(len(hist), size)]
		t = time.Now()
		d2, err := zstd.BuildDict(zstd.BuildDictOptions{ID: 2, Contents: samples, History: hist, Offsets: [3]int{1, 4, 8}, Level: zstd.SpeedDefault})
		fmt.Printf("histdict %dK: %v, %d bytes, err %v\n", size>>10, time.Since(t).Round(time.Millisecond), len(d2), err)
		if err == nil {
			run(fmt.Sprintf("histdict%dK", size>>10), zstd.SpeedDefault, false, d2, false)
		}
	}
}
