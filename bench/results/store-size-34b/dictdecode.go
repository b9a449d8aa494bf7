//go:build ignore

// 'go run dictdecode.go DIR': decode time per block of DIR's files up to
// 64 KiB, gathered in blocks of 64 KiB and compressed at zstd's default
// level, without and with a 64 KiB dictionary built from a sample of
// them (zstd.BuildDict). Five rounds, alternated.
package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/klauspost/compress/zstd"
)

func main() {
	var small [][]byte
	filepath.WalkDir(os.Args[1], func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			if len(b) > 0 && len(b) <= 64<<10 {
				small = append(small, b)
			}
		}
		return nil
	})
	var blocks [][]byte
	var cur []byte
	for _, b := range small {
		cur = append(cur, b...)
		if len(cur) >= 64<<10 {
			blocks = append(blocks, cur)
			cur = nil
		}
	}
	var samples [][]byte
	var hist []byte
	for i := 0; i < len(small); i += 5 {
		samples = append(samples, small[i])
		if len(hist) < 64<<10 {
			hist = append(hist, small[i][:min(len(small[i]), 4096)]...)
		}
	}
	d, err := zstd.BuildDict(zstd.BuildDictOptions{ID: 7, Contents: samples, History: hist[:min(len(hist), 64<<10)], Offsets: [3]int{1, 4, 8}, Level: zstd.SpeedDefault})
	if err != nil {
		panic(err)
	}
	encode := func(name string, opts ...zstd.EOption) [][]byte {
		enc, _ := zstd.NewWriter(nil, append([]zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithWindowSize(1 << 20), zstd.WithEncoderCRC(false), zstd.WithLowerEncoderMem(true)}, opts...)...)
		var out [][]byte
		t0 := time.Now()
		n := 0
		for _, b := range blocks {
			f := enc.EncodeAll(b, nil)
			n += len(f)
			out = append(out, f)
		}
		fmt.Printf("%s: %d blocks to %d bytes in %v\n", name, len(blocks), n, time.Since(t0))
		return out
	}
	plain := encode("plain")
	withDict := encode("dict", zstd.WithEncoderDict(d))
	decP, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0))
	decD, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderDicts(d))
	run := func(dec *zstd.Decoder, fr [][]byte) time.Duration {
		t0 := time.Now()
		for _, f := range fr {
			if _, err := dec.DecodeAll(f, nil); err != nil {
				panic(err)
			}
		}
		return time.Since(t0) / time.Duration(len(fr))
	}
	for r := 0; r < 5; r++ {
		fmt.Printf("round %d: plain %v/block, dict %v/block\n", r, run(decP, plain), run(decD, withDict))
	}
}
