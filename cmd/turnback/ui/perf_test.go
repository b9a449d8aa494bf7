package ui

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback"
)

// TestOpenTimeLargeStore measures how long the UI takes to show a store
// of 500 turns over a folder of TURNBACK_UI_BENCH_FILES files (default
// 100000): the session pick, the timeline, the first turn's diff (the
// first useful frame), and the working tree's status (drawn when it
// comes). Slow to set up: it runs only with TURNBACK_UI_BENCH=1.
func TestOpenTimeLargeStore(t *testing.T) {
	if os.Getenv("TURNBACK_UI_BENCH") == "" {
		t.Skip("set TURNBACK_UI_BENCH=1 to measure")
	}
	files := 100000
	if v := os.Getenv("TURNBACK_UI_BENCH_FILES"); v != "" {
		files, _ = strconv.Atoi(v)
	}
	ctx := context.Background()
	w := newWorld(t)
	for i := 0; i < files; i++ {
		w.write(fmt.Sprintf("d%03d/e%02d/f%05d.txt", i%100, i/100%10, i), fmt.Sprintf("file %d\n", i))
	}
	setup := time.Now()
	r, err := turnback.Open(ctx, w.dir, w.opts())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Watch(ctx, turnback.WatchOptions{}); err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 500; n++ {
		if _, err := r.Snap(ctx, fmt.Sprintf("turn %d", n)); err != nil {
			t.Fatal(err)
		}
		w.write(fmt.Sprintf("d%03d/e00/f%05d.txt", n%100, n%100), strings.Repeat(fmt.Sprintf("turn %d\n", n), n%7+1))
		if _, err := r.End(ctx); err != nil {
			t.Fatal(err)
		}
	}
	r.Close()
	t.Logf("setup: %d files, 500 turns in %v", files, time.Since(setup))

	for try := 0; try < 3; try++ {
		f := &Folder{WorkTree: w.dir, Options: w.opts()}
		var parts []string
		step := func(what string, fn func(r *turnback.Repo) error) {
			start := time.Now()
			if err := f.read(ctx, "default", fn); err != nil {
				t.Fatal(err)
			}
			parts = append(parts, fmt.Sprintf("%s %v", what, time.Since(start).Round(time.Millisecond)))
		}
		var turns []*turnback.Turn
		step("open+close", func(r *turnback.Repo) error { return nil })
		step("sessions", func(r *turnback.Repo) error { _, err := r.Sessions(ctx); return err })
		step("turns", func(r *turnback.Repo) error { var err error; turns, _, err = r.Turns(ctx); return err })
		step("unprotected", func(r *turnback.Repo) error { _, err := r.UnprotectedChanges(ctx, turns); return err })
		step("checkpoints", func(r *turnback.Repo) error { _, err := r.Checkpoints(ctx); return err })
		t.Logf("parts (each opens the store): %s", strings.Join(parts, ", "))
	}
	for try := 0; try < 3; try++ {
		f := &Folder{WorkTree: w.dir, Options: w.opts()}
		start := time.Now()
		session, _, err := Pick(ctx, f, "")
		if err != nil {
			t.Fatal(err)
		}
		picked := time.Since(start)
		tl, err := loadTimeline(ctx, f, []string{session})
		if err != nil {
			t.Fatal(err)
		}
		loaded := time.Since(start)
		m := New(ctx, Config{Folder: f, Session: session})
		m.setTimeline(tl)
		td := m.selectCmd()().(turnMsg)
		m.Update(td)
		first := time.Since(start)
		_ = m.frame()
		drawn := time.Since(start)
		st := time.Now()
		wm := m.workCmd()().(workMsg)
		if wm.err != nil {
			t.Fatal(wm.err)
		}
		t.Logf("open: pick %v, timeline (%d turns) %v, first turn's diff %v, first frame %v; working tree status %v more",
			picked.Round(time.Millisecond), len(tl.sessions[0].turns), loaded.Round(time.Millisecond),
			first.Round(time.Millisecond), drawn.Round(time.Millisecond), time.Since(st).Round(time.Millisecond))
	}
}

// TestLargeDiffScroll: a 1 MB diff is drawn a screen at a time: each
// frame while scrolling through it takes well under a frame's time.
func TestLargeDiffScroll(t *testing.T) {
	w := newWorld(t)
	var a, b strings.Builder
	for i := 0; a.Len() < 1<<20; i++ {
		fmt.Fprintf(&a, "func f%d() int { return %d } // line %d of a large file\n", i, i, i)
		if i%3 == 0 {
			fmt.Fprintf(&b, "func f%d() int { return %d } // changed\n", i, i*2)
		} else {
			fmt.Fprintf(&b, "func f%d() int { return %d } // line %d of a large file\n", i, i, i)
		}
	}
	w.write("big.go", a.String())
	w.turn("default", "rewrite a third of big.go", func() { w.write("big.go", b.String()) })
	w.open(160, 50, false)
	w.m.cfg.Color = true
	w.m.st = newStyles(true)
	w.keys("tab", "tab")
	if w.m.diff == nil || len(w.m.diff.lines) < 20000 {
		t.Fatalf("the diff of big.go is not shown: %v", w.m.diff != nil)
	}
	_ = w.m.frame()
	start := time.Now()
	const frames = 200
	for i := 0; i < frames; i++ {
		w.keys("pgdown")
		_ = w.m.frame()
	}
	per := time.Since(start) / frames
	t.Logf("%d diff lines; %v a frame while paging through them", len(w.m.diff.lines), per)
	if per > 50*time.Millisecond {
		t.Errorf("a frame of the 1 MB diff takes %v, want under 50ms", per)
	}
	if w.m.dtop == 0 {
		t.Error("pgdown did not scroll")
	}
	if !strings.Contains(w.m.frame(), "\x1b[") {
		t.Error("no colour in the frame")
	}
}
