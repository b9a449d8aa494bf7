//go:build ignore

// go run zb.go TREE: zstd levels and options, and S2, on 300 MB of
// TREE's files joined into 64 KiB blocks, as a capture's blocks are.
package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

func main() {
	var blocks [][]byte
	cur := []byte{}
	total := 0
	filepath.WalkDir(os.Args[1], func(p string, d fs.DirEntry, err error) error {
		if total > 300<<20 || d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		b, _ := os.ReadFile(p)
		if len(b) > 128<<10 {
			return nil
		}
		cur = append(cur, b...)
		total += len(b)
		if len(cur) >= 64<<10 {
			blocks = append(blocks, cur)
			cur = []byte{}
		}
		return nil
	})
	fmt.Println("blocks", len(blocks), "bytes", total)
	run := func(name string, f func(dst, src []byte) []byte) {
		dst := make([]byte, 0, 256<<10)
		out := 0
		t := time.Now()
		for _, b := range blocks {
			out += len(f(dst[:0], b))
		}
		d := time.Since(t)
		fmt.Printf("%-28s %7.1f MB/s ratio %.3f\n", name, float64(total)/d.Seconds()/1e6, float64(out)/float64(total))
	}
	for _, o := range []struct {
		n    string
		opts []zstd.EOption
	}{
		{"fastest", []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedFastest)}},
		{"fastest noentropy", []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithNoEntropyCompression(true)}},
		{"fastest nocrc", []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(false)}},
		{"fastest", []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedFastest)}},
		{"fastest nocrc", []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(false)}},
		{"default", []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedDefault)}},
		{"default nocrc", []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderCRC(false)}},
	} {
		e, _ := zstd.NewWriter(nil, append(o.opts, zstd.WithEncoderConcurrency(1))...)
		run(o.n, func(d, s []byte) []byte { return e.EncodeAll(s, d) })
	}
	if false {
		run("s2", func(d, s []byte) []byte { return s2.Encode(d[:cap(d)], s) })
		run("s2 better", func(d, s []byte) []byte { return s2.EncodeBetter(d[:cap(d)], s) })
	}
}
