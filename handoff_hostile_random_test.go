//go:build linux

package turnback

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/internal/testtier"
	"golang.org/x/sys/unix"
)

// TestHandoffRandomHostile is TestHandoffRandom with harsher edits
// besides the usual ones: directories swapped (RENAME_EXCHANGE) or
// replaced by symlinks, generated-directory markers made and removed,
// directories renamed to names differing in case only, a directory
// built aside and moved into place, ignore files changed now and then.
// Every snap after the handoff must equal a full walk.
// TURNBACK_HANDOFF_SEED reruns one seed.
func TestHandoffRandomHostile(t *testing.T) {
	testtier.Slow(t)
	seeds := 12
	base := uint64(time.Now().UnixNano())
	if s := os.Getenv("TURNBACK_HANDOFF_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		base, seeds = n, 1
	}
	used := 0
	for i := range seeds {
		seed := base + uint64(i)
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			t.Logf("rerun with TURNBACK_HANDOFF_SEED=%d", seed)
			if runHandoffHostile(t, seed) {
				used++
			}
		})
	}
	t.Logf("%d of %d seeds used the handoff", used, seeds)
}

// hostileEditor is a startEditor with harsher edits mixed in.
type hostileEditor struct{ *startEditor }

func (e hostileEditor) run() {
	defer e.wg.Done()
	for {
		select {
		case <-e.done:
			return
		default:
		}
		e.mu.Lock()
		if e.rng.IntN(3) == 0 {
			e.hostile()
		} else {
			e.edit()
		}
		e.mu.Unlock()
		if e.rng.IntN(4) == 0 {
			time.Sleep(time.Duration(e.rng.IntN(300)) * time.Microsecond)
		} else {
			runtime.Gosched()
		}
	}
}

func (e hostileEditor) note(op string) {
	e.log = append(e.log, op)
	if len(e.log) > 40 {
		e.log = e.log[1:]
	}
}

// hostile makes one harsh change (errors are simply no change).
func (e hostileEditor) hostile() {
	e.seq++
	name := fmt.Sprintf("h%d", e.seq)
	dirs := e.dirs()
	sub := func() string {
		if len(dirs) < 2 {
			return ""
		}
		return dirs[1+e.rng.IntN(len(dirs)-1)]
	}
	switch k := e.rng.IntN(100); {
	case k < 20: // swap two directories, or a directory and a file
		a := sub()
		var b string
		if e.rng.IntN(3) == 0 {
			if f := e.files(); len(f) > 0 {
				b = e.pick(f)
			}
		} else {
			b = sub()
		}
		if a == "" || b == "" || a == b || strings.HasPrefix(b, a+"/") || strings.HasPrefix(a, b+"/") {
			return
		}
		e.note("exchange " + a + " " + b)
		_ = unix.Renameat2(unix.AT_FDCWD, e.abs(a), unix.AT_FDCWD, e.abs(b), unix.RENAME_EXCHANGE)
	case k < 35: // a directory replaced by a symlink to another one
		a, b := sub(), e.pick(dirs)
		if a == "" {
			return
		}
		e.note("replace " + a + " by a symlink to " + b)
		if os.Rename(e.abs(a), e.abs(path.Join(path.Dir(a), name))) == nil {
			rel, err := filepath.Rel(filepath.Dir(e.abs(a)), e.abs(b))
			if err == nil {
				_ = os.Symlink(rel, e.abs(a))
			}
		}
	case k < 50: // a marker made or removed
		d := e.pick(dirs)
		p := e.abs(path.Join(d, "CACHEDIR.TAG"))
		if _, err := os.Lstat(p); err == nil {
			e.note("rm " + path.Join(d, "CACHEDIR.TAG"))
			_ = os.Remove(p)
		} else {
			e.note("tag " + d)
			_ = os.WriteFile(p, []byte(cacheDirTag), 0o644)
		}
	case k < 65: // a rename to a name differing in case
		a := sub()
		if a == "" {
			return
		}
		base := path.Base(a)
		up := strings.ToUpper(base)
		if up == base {
			up = strings.ToLower(base)
		}
		e.note("mv " + a + " " + path.Join(path.Dir(a), up))
		_ = os.Rename(e.abs(a), e.abs(path.Join(path.Dir(a), up)))
	case k < 85: // a directory built aside, moved into place
		tmp := e.abs(name + ".tmp")
		_ = os.MkdirAll(filepath.Join(tmp, "in", "deep"), 0o755)
		for i := range e.rng.IntN(4) {
			_ = os.WriteFile(filepath.Join(tmp, "in", "deep", fmt.Sprint("f", i)), []byte(name), 0o644)
		}
		dst := path.Join(e.pick(dirs), name)
		e.note("build aside, mv to " + dst)
		_ = os.Rename(tmp, e.abs(dst))
		_ = os.RemoveAll(tmp)
	case k < 92 && !e.noIgnore: // an ignore file
		d := e.pick(dirs)
		e.note("ignore in " + d)
		_ = os.WriteFile(e.abs(path.Join(d, ".gitignore")), []byte(fmt.Sprintf("h*%d\n", e.seq%7)), 0o644)
	default: // a symlink replaced by a directory
		d := e.pick(dirs)
		p := e.abs(path.Join(d, name))
		e.note("symlink then dir " + path.Join(d, name))
		_ = os.Symlink(".", p)
		_ = os.Remove(p)
		_ = os.MkdirAll(filepath.Join(p, "x"), 0o755)
	}
}

// runHandoffHostile is runHandoff with a hostileEditor.
func runHandoffHostile(t *testing.T, seed uint64) bool {
	ctx := t.Context()
	rng := rand.New(rand.NewPCG(seed, seed^0x2545f4914f6cdd1d))
	wt := t.TempDir()
	ed := hostileEditor{&startEditor{t: t, rng: rand.New(rand.NewPCG(seed^0x1234, seed)), dir: wt, done: make(chan struct{}),
		noIgnore: rng.IntN(4) > 0}}
	ed.seedTree(rng)
	store := t.TempDir()
	opts := Options{Store: store, LargeDirFiles: -1}
	if rng.IntN(2) == 0 {
		snapAndClose(t, wt, opts, "before")
	}
	ed.wg.Add(1)
	go ed.run()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			close(ed.done)
			ed.wg.Wait()
		}
	}
	defer stop()
	d, ph, statErr := handoffAndWatch(t, rng, seed, wt, store, opts)
	defer d.Close()
	t.Logf("handoff written: %v; phases: %s", statErr == nil, ph)
	view, err := d.View(Options{Session: "snaps", LargeDirFiles: -1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 + rng.IntN(5) {
		if rng.IntN(2) == 0 {
			time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond)
		}
		ed.mu.Lock()
		res, err := view.Snap(ctx, fmt.Sprint("after ", i))
		if err != nil {
			ed.mu.Unlock()
			t.Fatalf("snap %d: %v", i, err)
		}
		want := fullWalkOf(t, wt)
		log := strings.Join(ed.log, "\n  ")
		ed.mu.Unlock()
		// A full walk counts the directories it lists to find their
		// evidence; an incremental capture counts those of the
		// directories it reads only.
		wantDirs := want.Stats.Dirs
		for _, s := range want.Skipped {
			if s.Rule == "evidence" {
				wantDirs--
			}
		}
		if res.Snapshot != want.Root || res.Files != want.Stats.Files || res.Bytes != want.Stats.Bytes ||
			res.Stats.Dirs < wantDirs || res.Stats.Dirs > want.Stats.Dirs || res.Stats.Symlinks != want.Stats.Symlinks {
			t.Fatalf("snap %d (watch %+v, handoff %v) = %s (%d files, %d bytes, %d dirs, %d symlinks), full walk %s (%+v)\nfull walk skipped %+v\nlast edits:\n  %s",
				i, res.Watch, ph.Handoff, res.Snapshot.Short(), res.Files, res.Bytes, res.Stats.Dirs, res.Stats.Symlinks,
				want.Root.Short(), want.Stats, want.Skipped, log)
		}
	}
	return ph.Handoff
}
