//go:build ignore

// go run zb2.go TREE: zstd's fastest and default levels on TREE's
// text files and its other files apart, joined into 64 KiB blocks as a
// capture's blocks are (200 MB of text, 60 MB of the rest).
package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/klauspost/compress/zstd"
)

func main() {
	var text, bin [][]byte
	var ct, cb []byte
	tt, tb := 0, 0
	filepath.WalkDir(os.Args[1], func(p string, d fs.DirEntry, err error) error {
		if tt > 200<<20 && tb > 60<<20 {
			return filepath.SkipAll
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		b, _ := os.ReadFile(p)
		if len(b) > 64<<10 {
			return nil
		}
		if bytes.HasPrefix(b, []byte("// ")) {
			if tt > 200<<20 {
				return nil
			}
			ct = append(ct, b...)
			tt += len(b)
			if len(ct) >= 64<<10 {
				text = append(text, ct)
				ct = nil
			}
		} else {
			if tb > 60<<20 {
				return nil
			}
			cb = append(cb, b...)
			tb += len(b)
			if len(cb) >= 64<<10 {
				bin = append(bin, cb)
				cb = nil
			}
		}
		return nil
	})
	run := func(name string, blocks [][]byte, f func(dst, src []byte) []byte) {
		dst := make([]byte, 0, 256<<10)
		out, total := 0, 0
		t := time.Now()
		for _, b := range blocks {
			out += len(f(dst[:0], b))
			total += len(b)
		}
		d := time.Since(t)
		fmt.Printf("%-28s %7.1f MB/s ratio %.3f\n", name, float64(total)/d.Seconds()/1e6, float64(out)/float64(total))
	}
	for _, o := range []struct {
		n    string
		opts []zstd.EOption
	}{
		{"fastest", []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedFastest)}},
		{"default", []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithLowerEncoderMem(true)}},
		{"fastest", []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedFastest)}},
	} {
		e, _ := zstd.NewWriter(nil, append(o.opts, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20), zstd.WithEncoderCRC(false))...)
		run(o.n+" text", text, func(d, s []byte) []byte { return e.EncodeAll(s, d) })
		run(o.n+" bin", bin, func(d, s []byte) []byte { return e.EncodeAll(s, d) })
	}
}
