//go:build ignore

// 'go run analyze.go DIR [perfile|solid|dict]': the compressed size of the files
// of DIR (one copy each) one zstd frame per file, in blocks, and with a
// trained dictionary.
package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/klauspost/compress/dict"
	"github.com/klauspost/compress/zstd"
)

type file struct {
	path string
	data []byte
}

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
		k := string(b)
		if seen[k] {
			return nil
		}
		seen[k] = true
		files = append(files, file{p, b})
		return nil
	})
	var raw int64
	small := 0
	var smallRaw int64
	for _, f := range files {
		raw += int64(len(f.data))
		if len(f.data) < 256 {
			small++
			smallRaw += int64(len(f.data))
		}
	}
	fmt.Printf("files %d raw %d small(<256) %d (%d bytes)\n", len(files), raw, small, smallRaw)
	levels := []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedDefault, zstd.SpeedBetterCompression, zstd.SpeedBestCompression}
	mode := "all"
	if len(os.Args) > 2 {
		mode = os.Args[2]
	}
	perFile := func(lv zstd.EncoderLevel, opts ...zstd.EOption) (int64, time.Duration) {
		enc, _ := zstd.NewWriter(nil, append([]zstd.EOption{zstd.WithEncoderLevel(lv), zstd.WithWindowSize(1 << 20), zstd.WithEncoderCRC(false), zstd.WithEncoderConcurrency(1)}, opts...)...)
		t := time.Now()
		var tot int64
		buf := make([]byte, 0, 1<<20)
		for _, f := range files {
			out := enc.EncodeAll(f.data, buf[:0])
			n := len(out)
			if n >= len(f.data)-len(f.data)/32 || len(f.data) < 64 {
				n = len(f.data)
			}
			tot += int64(n) + 1
		}
		return tot, time.Since(t)
	}
	if mode == "all" || mode == "perfile" {
		for _, lv := range levels {
			n, d := perFile(lv)
			fmt.Printf("perfile %-8v %d (%.3f) %v\n", lv, n, float64(n)/float64(raw), d)
		}
	}
	order := func(byExt bool) []file {
		fs := append([]file(nil), files...)
		if byExt {
			sort.SliceStable(fs, func(i, j int) bool {
				ei, ej := filepath.Ext(fs[i].path), filepath.Ext(fs[j].path)
				if ei != ej {
					return ei < ej
				}
				return false
			})
		}
		return fs
	}
	solid := func(fs []file, block int, maxFile int, lv zstd.EncoderLevel) (int64, int64, time.Duration, time.Duration, int) {
		enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(lv), zstd.WithWindowSize(1<<20), zstd.WithEncoderCRC(false), zstd.WithEncoderConcurrency(1))
		dec, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
		encRest, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithWindowSize(1<<20), zstd.WithEncoderCRC(false), zstd.WithEncoderConcurrency(1))
		var tot, rest int64
		var cur []byte
		var blocks [][]byte
		t := time.Now()
		flush := func() {
			if len(cur) == 0 {
				return
			}
			out := enc.EncodeAll(cur, nil)
			tot += int64(len(out)) + 16
			blocks = append(blocks, out)
			cur = cur[:0]
		}
		for _, f := range fs {
			if len(f.data) > maxFile {
				out := encRest.EncodeAll(f.data, nil)
				n := len(out)
				if n >= len(f.data)-len(f.data)/32 {
					n = len(f.data)
				}
				rest += int64(n) + 1
				continue
			}
			cur = append(cur, f.data...)
			if len(cur) >= block {
				flush()
			}
		}
		flush()
		ct := time.Since(t)
		t = time.Now()
		for _, b := range blocks {
			dec.DecodeAll(b, nil)
		}
		dt := time.Since(t)
		return tot, rest, ct, dt / time.Duration(max(1, len(blocks))), len(blocks)
	}
	if mode == "all" || mode == "solid" {
		for _, byExt := range []bool{false} {
			for _, block := range []int{128 << 10, 256 << 10} {
				for _, maxFile := range []int{64 << 10, 128 << 10} {
					for _, lv := range levels[1:2] {
						tot, rest, ct, dt, nb := solid(order(byExt), block, maxFile, lv)
						fmt.Printf("solid ext=%v block=%dK max=%dK %-8v blocks %d + rest %d = %d (%.3f) enc %v dec/block %v n=%d\n", byExt, block>>10, maxFile>>10, lv, tot, rest, tot+rest, float64(tot+rest)/float64(raw), ct, dt, nb)
					}
				}
			}
		}
	}
	if mode == "all" || mode == "dict" {
		for _, size := range []int{32 << 10, 112 << 10} {
			var samples [][]byte
			for i, f := range files {
				if i%7 == 0 {
					samples = append(samples, f.data)
				}
			}
			t := time.Now()
			d, err := dict.BuildZstdDict(samples, dict.Options{MaxDictSize: size, HashBytes: 6, ZstdDictID: 1, ZstdLevel: zstd.SpeedFastest})
			if err != nil {
				fmt.Println("dict", err)
				continue
			}
			bt := time.Since(t)
			for _, lv := range levels[:3] {
				n, dd := perFile(lv, zstd.WithEncoderDict(d))
				fmt.Printf("dict %dK (built %v, %d bytes) %-8v %d (%.3f) %v\n", size>>10, bt, len(d), lv, n, float64(n)/float64(raw), dd)
			}
		}
	}
}
