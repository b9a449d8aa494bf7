//go:build unix

package walker

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/turnback/turnback/manifest/treetest"
)

// BenchmarkCaptureNoChangeRepo: BenchmarkCaptureNoChange in a git
// repository whose .gitignore skips two thirds of the files (an object
// and a dependency file beside each of 5,000 sources, 40 of which are
// tracked *.cfg files and a logs/ directory). Each capture reads the
// index, as a command's does.
func BenchmarkCaptureNoChangeRepo(b *testing.B) {
	dir := b.TempDir()
	files := map[string]string{".gitignore": "*.o\n*.d\n*.cfg\nlogs/\n"}
	for d := range 100 {
		for i := range 50 {
			p := fmt.Sprintf("src/m%02d/p%03d/f%02d", d/10, d, i)
			files[p+".c"], files[p+".o"], files[p+".d"] = "int x;\n", "obj", "dep"
		}
		files[fmt.Sprintf("src/m%02d/p%03d/conf.cfg", d/10, d)] = "cfg"
		files[fmt.Sprintf("logs/l%03d.log", d)] = "log"
	}
	treetest.PutAll(b, dir, files)
	git(b, dir, "init", "-q")
	git(b, dir, "add", "-A")
	git(b, dir, "add", "-f", ":(glob)src/m0[0-3]/*/conf.cfg")
	ageTree(b, dir)
	time.Sleep(settle)
	s := newStore(b)
	cache := NewStatCache(s.Backend())
	root := openRoot(b, dir)
	ctx := context.Background()
	first, err := Capture(ctx, root, s, Options{Cache: cache})
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{Cache: cache, Previous: first.Root}
	b.ReportAllocs()
	for b.Loop() {
		res, err := Capture(ctx, root, s, opts)
		if err != nil {
			b.Fatal(err)
		}
		if res.Root != first.Root || res.Stats.HashedFiles != 0 {
			b.Fatalf("root %s (want %s), read %d files (want 0)", res.Root.Short(), first.Root.Short(), res.Stats.HashedFiles)
		}
	}
	b.ReportMetric(float64(first.Stats.Files), "files")
}
