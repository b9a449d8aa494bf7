//go:build linux && (amd64 || arm64)

package walker

// More attacks on lazy directory handles (see lazy_attack_test.go):
// descriptors, other users, mounts, captures by name, a stress loop,
// the longest paths.

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/manifest/treetest"
	"golang.org/x/sys/unix"
)

// openFDs counts the process's open descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count descriptors: %v", err)
	}
	return len(ents)
}

// TestLazyAttackNoLeak: many captures of a tree with lazy directories
// never opened, opened to read a changed file, failing to open (gone,
// replaced by another directory, by a symlink) and below one that
// fails, leave the descriptors open as they were.
func TestLazyAttackNoLeak(t *testing.T) {
	files := map[string]string{"top.txt": "top"}
	for _, d := range []string{"quiet/q", "read/r", "gone/g", "swap/s", "link/l"} {
		files[d+"/one.txt"] = "1"
		files[d+"/two.txt"] = "2"
		files[path.Dir(d)+"/file.txt"] = "f"
	}
	dir, s, opts, _ := lazySetup(t, files)
	failAt := map[string]func(p string){
		"gone": func(p string) { os.Rename(p, p+".away") },
		"swap": func(p string) { os.Rename(p, p+".away"); os.Mkdir(p, 0o755) },
		"link": func(p string) { os.Rename(p, p+".away"); os.Symlink("quiet", p) },
	}
	testHookLazyOpen = func(name string) {
		if f := failAt[name]; f != nil {
			f(abs(dir, name))
		}
	}
	defer func() { testHookLazyOpen = nil }()
	capture := func(round int) *Result {
		for _, d := range []string{"read/r", "gone/g", "swap/s", "link/l"} {
			treetest.PutAll(t, dir, map[string]string{d + "/one.txt": fmt.Sprint(round)})
		}
		r := snapClosed(t, dir, s, opts)
		opts.Previous = r.Root
		for name := range failAt {
			p := abs(dir, name)
			if _, err := os.Lstat(p + ".away"); err == nil {
				os.RemoveAll(p)
				if err := os.Rename(p+".away", p); err != nil {
					t.Fatal(err)
				}
			}
		}
		return r
	}
	capture(0)
	before := openFDs(t)
	uncaptured := 0
	for round := 1; round <= 30; round++ {
		r := capture(round)
		uncaptured += len(r.Stats.Uncaptured)
	}
	if after := openFDs(t); after != before {
		t.Errorf("%d descriptors open before 30 captures, %d after", before, after)
	}
	if uncaptured == 0 {
		t.Error("no directory failed to open: the attack did not happen")
	}
}

// TestLazyAttackRootOthers: run as root, a tree of another user's
// directories without read or search permission (0000, 0111, 0333,
// 0700) and files (0000, 0600). Unchanged, they stay unopened; a
// changed file in one is read through its lazy directory; each capture
// equals a full walk, owners included.
func TestLazyAttackRootOthers(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	const nobody = 65534
	dir := t.TempDir()
	var nodes []node
	modes := map[string]uint32{"none": 0o000, "x": 0o111, "wx": 0o333, "own": 0o700}
	for name, mode := range modes {
		nodes = append(nodes,
			fileNode("d/"+name+"/closed.txt", 0o000, "closed "+name),
			fileNode("d/"+name+"/mine.txt", 0o600, "mine "+name),
			fileNode("d/"+name+"/deeper/in.txt", 0o600, "in "+name),
			dirNode("d/"+name+"/deeper", mode),
			dirNode("d/"+name, mode))
	}
	build(t, dir, nodes)
	for _, n := range nodes {
		if err := os.Lchown(abs(dir, n.path), nobody, nobody); err != nil {
			t.Fatal(err)
		}
	}
	requireVouching(t, dir)
	ageTree(t, dir)
	time.Sleep(settle)
	s := newStore(t)
	opts := Options{Cache: NewStatCache(s.Backend())}
	r1 := snap(t, dir, s, opts)
	full := func() map[string]manifest.Entry {
		fs := newStore(t)
		return flattenOwned(t, fs, snap(t, dir, fs, Options{}).Root)
	}
	sameSnapshot(t, "first capture", flattenOwned(t, s, r1.Root), full())
	opened := hookLazyOpens(t)
	opts.Previous = r1.Root
	r2 := snap(t, dir, s, opts)
	if r2.Root != r1.Root {
		t.Error("unchanged tree: root changed")
	}
	if o := opened(); len(o) != 0 {
		t.Errorf("unchanged tree: opened %q", o)
	}
	write(t, dir, "d/none/deeper/in.txt", "changed by root")
	if err := os.Chmod(abs(dir, "d/none/deeper/in.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(abs(dir, "d/none/deeper/in.txt"), nobody, nobody); err != nil {
		t.Fatal(err)
	}
	opts.Previous = r2.Root
	r3 := snap(t, dir, s, opts)
	if o := opened(); !slices.Equal(o, []string{"d", "deeper", "none"}) {
		t.Errorf("one file changed: opened %q, want d, none, deeper", o)
	}
	got := flattenOwned(t, s, r3.Root)
	if e := got["d/none/deeper/in.txt"]; e.Hash != cas.Sum([]byte("changed by root")) || e.UID != nobody {
		t.Errorf("d/none/deeper/in.txt = %+v", e)
	}
	sameSnapshot(t, "after the change", got, full())
	if len(r3.Stats.Problems) != 0 {
		t.Errorf("problems: %+v", r3.Stats.Problems)
	}
}

// TestLazyAttackOtherUsersRecord: root captures a tree, filling the
// stat cache; then user nobody captures it on those records. Directory
// a/secret (root's, 0711) is searchable but not readable to nobody: a
// full walk as nobody cannot open it, and leaves it uncaptured. A
// capture on root's records lstats its names by path (search is
// enough) and must not capture it whole either: it would differ from
// the full walk, as it did not before lazy handles (its open failed).
func TestLazyAttackOtherUsersRecord(t *testing.T) {
	if work := os.Getenv("LAZY_ATTACK_WORK"); work != "" && os.Geteuid() != 0 {
		b, err := cas.OpenBadger(t.Context(), os.Getenv("LAZY_ATTACK_STORE"), cas.BadgerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s := newStoreOn(t, b)
		prev, err := cas.ParseHash(os.Getenv("LAZY_ATTACK_PREV"))
		if err != nil {
			t.Fatal(err)
		}
		r := snap(t, work, s, Options{Cache: NewStatCache(b), Previous: prev})
		got, want := flatten(t, s, r.Root), fullWalk(t, work)
		t.Logf("as nobody on root's records: %q; full walk %q", pathsOf(got), pathsOf(want))
		sameSnapshot(t, "capture as nobody on root's records", got, want)
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root, to write the records nobody then uses")
	}
	base, err := os.MkdirTemp("", "walker-lazy-other-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	work, store := abs(base, "work"), abs(base, "store")
	build(t, work, []node{
		fileNode("a/open/g.txt", 0o644, "g"),
		fileNode("a/secret/f.txt", 0o644, "f"),
		dirNode("a/secret", 0o711),
		fileNode("top.txt", 0o644, "top"),
	})
	requireVouching(t, work)
	ageTree(t, work)
	time.Sleep(settle)
	b, err := cas.OpenBadger(t.Context(), store, cas.BadgerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := cas.NewStore(b)
	if err != nil {
		t.Fatal(err)
	}
	r := snap(t, work, s, Options{Cache: NewStatCache(b)})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(store, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, 65534, 65534)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("LAZY_ATTACK_WORK", work)
	t.Setenv("LAZY_ATTACK_STORE", store)
	t.Setenv("LAZY_ATTACK_PREV", r.Root.String())
	if !rerunUnprivileged(t) {
		t.Fatal("not re-run as nobody")
	}
}

// mountHere mounts (tmpfs, or a bind mount of src) on p, skipping the
// test where that cannot be done; the test's end detaches it.
func mountHere(t *testing.T, src, p string) {
	t.Helper()
	var err error
	if src == "" {
		err = unix.Mount("tmpfs", p, "tmpfs", 0, "size=1m")
	} else {
		err = unix.Mount(src, p, "", unix.MS_BIND, "")
	}
	if err != nil {
		t.Skipf("cannot mount on %s: %v", p, err)
	}
	t.Cleanup(func() { unix.Unmount(p, unix.MNT_DETACH) })
}

// TestLazyAttackMounts: a tmpfs below a chain of lazy directories is
// judged by itself, and a capture equals a full walk; a tmpfs or a bind
// mount of a directory outside the work tree mounted on a lazy
// directory after its parent lstat'ed it, while its names are lstat'ed
// by path, gives no content from outside, and the next capture equals
// a full walk.
func TestLazyAttackMounts(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting needs root")
	}
	t.Run("below a lazy chain", func(t *testing.T) {
		dir := t.TempDir()
		treetest.PutAll(t, dir, map[string]string{"a/b/c/one.txt": "1", "top.txt": "top"})
		mkdirAll(t, dir, "a/b/c/m")
		mountHere(t, "", abs(dir, "a/b/c/m"))
		treetest.PutAll(t, dir, map[string]string{"a/b/c/m/in.txt": "in", "a/b/c/m/d/deep.txt": "deep"})
		requireVouching(t, dir)
		ageTree(t, dir)
		time.Sleep(settle)
		s := newStore(t)
		opts := Options{Cache: NewStatCache(s.Backend())}
		r1 := snapClosed(t, dir, s, opts)
		opts.Previous = r1.Root
		opened := hookLazyOpens(t)
		r2 := snapClosed(t, dir, s, opts)
		if r2.Root != r1.Root {
			t.Error("unchanged tree: root changed")
		}
		// The mount point is opened through c, so is the chain.
		if o := opened(); !slices.Equal(o, []string{"a", "b", "c"}) {
			t.Errorf("opened %q, want a, b, c", o)
		}
		treetest.PutAll(t, dir, map[string]string{"a/b/c/m/d/deep.txt": "changed"})
		opts.Previous = r2.Root
		r3 := snapClosed(t, dir, s, opts)
		got := flatten(t, s, r3.Root)
		if got["a/b/c/m/d/deep.txt"].Hash != cas.Sum([]byte("changed")) {
			t.Error("a change on the tmpfs below the chain was missed")
		}
		sameSnapshot(t, "after a change on the mount", got, fullWalk(t, dir))
	})
	for _, tc := range []struct {
		name   string
		bind   bool
		filled bool
	}{
		{"tmpfs, empty", false, false},
		{"tmpfs, with b's names", false, true},
		{"bind mount from outside", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, s, opts, _ := lazySetup(t, map[string]string{"a/b/x.txt": "x", "a/b/y.txt": "y", "a/b/sub/z.txt": "z", "top.txt": "top"})
			outside, secrets := lazyOutside(t)
			hookLstatOnce(t, "x.txt", func() {
				src := ""
				if tc.bind {
					src = outside
				}
				mountHere(t, src, abs(dir, "a/b"))
				if tc.filled {
					treetest.PutAll(t, dir, map[string]string{"a/b/x.txt": "tmp x", "a/b/y.txt": "tmp y", "a/b/sub/z.txt": "tmp z"})
				}
			})
			r2 := snapClosed(t, dir, s, opts)
			testHookLstat = nil
			noOutsideContent(t, s, flatten(t, s, r2.Root), secrets)
			if tc.bind {
				if err := unix.Unmount(abs(dir, "a/b"), 0); err != nil {
					t.Fatal(err)
				}
			}
			opts.Previous = r2.Root
			r3 := snapClosed(t, dir, s, opts)
			sameSnapshot(t, "next capture", flatten(t, s, r3.Root), fullWalk(t, dir))
		})
	}
}

// TestLazyAttackByName: a capture by name (Options.Base, Dirty, Names)
// of a file deep in a chain of small lazy directories gives the root a
// full walk gives; so it does with a name created beside it, or the
// directory renamed away, at the open of a lazy directory on the way;
// and the next full capture equals a full walk.
func TestLazyAttackByName(t *testing.T) {
	for _, tc := range []struct {
		name string
		at   string // the lazy open that makes the change
		do   func(dir string) error
	}{
		{"no race", "", nil},
		{"name created beside", "r", func(dir string) error {
			return os.WriteFile(abs(dir, "p/q/r/new.txt"), []byte("new"), 0o644)
		}},
		{"file renamed beside", "r", func(dir string) error {
			return os.Rename(abs(dir, "p/q/r/f2.txt"), abs(dir, "p/q/r/f3.txt"))
		}},
		{"directory renamed away", "r", func(dir string) error {
			return os.Rename(abs(dir, "p/q/r"), abs(dir, "p/q/gone"))
		}},
		{"parent renamed away", "q", func(dir string) error {
			return os.Rename(abs(dir, "p/q"), abs(dir, "p/gone"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, s, opts, r1 := lazySetup(t, map[string]string{
				"p/q/r/f1.txt": "1", "p/q/r/f2.txt": "2", "p/q/side.txt": "s", "other/o.txt": "o", "top.txt": "top",
			})
			write(t, dir, "p/q/r/f1.txt", "turn")
			opts.Uncounted = true
			fired := false
			if tc.do != nil {
				hookLazyOpenOnce(t, tc.at, func() {
					fired = true
					if err := tc.do(dir); err != nil {
						t.Error(err)
					}
				})
			}
			got := snap(t, dir, s, byName(opts, r1.Root, []string{"p/q/r/f1.txt"}))
			testHookLazyOpen = nil
			if tc.do != nil && !fired {
				t.Fatalf("%s was not opened lazily", tc.at)
			}
			if got.Stats.DirsReused == 0 {
				t.Error("nothing reused: not a capture by name")
			}
			m := flatten(t, s, got.Root)
			if tc.do == nil {
				fs := newStore(t)
				if want := snap(t, dir, fs, Options{}).Root; got.Root != want {
					sameSnapshot(t, "by name", m, fullWalk(t, dir))
				}
			}
			if e, ok := m["p/q/r/f1.txt"]; ok && e.Hash != cas.Sum([]byte("turn")) {
				t.Errorf("p/q/r/f1.txt = %+v, not the turn's content", e)
			}
			opts.Previous = got.Root
			opts.Uncounted = false
			next := snap(t, dir, s, opts)
			sameSnapshot(t, "next full capture", flatten(t, s, next.Root), fullWalk(t, dir))
		})
	}
}

// TestLazyAttackStress: a goroutine keeps changing a/b (exchanged with
// a twin, replaced by a symlink outside the work tree or inside it,
// chmod'ed, a file edited) while captures run, for about a second.
// After each, with nothing changing, the next capture equals a full
// walk, and no content from outside the work tree is ever stored.
func TestLazyAttackStress(t *testing.T) {
	files := map[string]string{"top.txt": "top"}
	for _, d := range []string{"a/b", "a/twin"} {
		for _, f := range []string{"x.txt", "y.txt", "sub/z.txt", "sub/deep/w.txt"} {
			files[d+"/"+f] = d + f
		}
	}
	dir, s, opts, _ := lazySetup(t, files)
	outside, secrets := lazyOutside(t)
	b, saved := abs(dir, "a/b"), abs(dir, "a/b.saved")
	ops := []func(r *rand.Rand){
		func(*rand.Rand) {
			unix.Renameat2(unix.AT_FDCWD, b, unix.AT_FDCWD, abs(dir, "a/twin"), unix.RENAME_EXCHANGE)
		},
		func(r *rand.Rand) {
			if os.Rename(b, saved) == nil {
				os.Symlink([]string{outside, "twin", "b.saved"}[r.IntN(3)], b)
			}
		},
		func(*rand.Rand) {
			if fi, err := os.Lstat(saved); err == nil && fi.IsDir() {
				os.Remove(b)
				os.Rename(saved, b)
			}
		},
		func(r *rand.Rand) { os.Chmod(b, []os.FileMode{0, 0o111, 0o333, 0o755}[r.IntN(4)]) },
		func(r *rand.Rand) {
			os.WriteFile(abs(dir, "a/b/sub/deep/w.txt"), fmt.Appendf(nil, "w%d", r.IntN(1000)), 0o644)
		},
	}
	deadline := time.Now().Add(time.Second)
	round := 0
	defer func() { t.Logf("%d rounds", round) }()
	for ; time.Now().Before(deadline); round++ {
		stop, done := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			r := rand.New(rand.NewPCG(uint64(round), 7))
			for {
				select {
				case <-stop:
					return
				default:
				}
				ops[r.IntN(len(ops))](r)
				time.Sleep(time.Duration(r.IntN(300)) * time.Microsecond)
			}
		}()
		r2, err := Capture(t.Context(), openRoot(t, dir), s, opts)
		close(stop)
		<-done
		if err != nil {
			t.Fatalf("round %d: capture while changing: %v", round, err)
		}
		noOutsideContent(t, s, flatten(t, s, r2.Root), secrets)
		os.Chmod(b, 0o755)
		opts.Previous = r2.Root
		r3 := snap(t, dir, s, opts)
		next := flatten(t, s, r3.Root)
		noOutsideContent(t, s, next, secrets)
		sameSnapshot(t, fmt.Sprintf("round %d: next capture", round), next, fullWalk(t, dir))
		opts.Previous = r3.Root
		if t.Failed() {
			return
		}
	}
}

// TestLazyAttackLongPaths: a chain of 20 directories with names of 255
// bytes, the last with a file. Its full path is past PATH_MAX, and so
// would be a path below an open ancestor that no bound cut short: an
// lstat by path would fail with ENAMETOOLONG. Unchanged, changed, each
// capture equals a full walk, with no problem.
func TestLazyAttackLongPaths(t *testing.T) {
	dir := t.TempDir()
	requireVouching(t, dir)
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i := range 20 {
		name := fmt.Sprintf("%02d", i) + strings.Repeat("n", 253)
		names = append(names, name)
		if err := unix.Mkdirat(fd, name, 0o755); err != nil {
			t.Fatal(err)
		}
		sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		unix.Close(fd)
		if err != nil {
			t.Fatal(err)
		}
		fd = sub
	}
	writeAt := func(data string) {
		f, err := unix.Openat(fd, "bottom.txt", unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		unix.Write(f, []byte(data))
		unix.Close(f)
	}
	writeAt("bottom")
	defer unix.Close(fd)
	time.Sleep(settle)
	s := newStore(t)
	opts := Options{Cache: NewStatCache(s.Backend())}
	bottom := strings.Join(names, "/") + "/bottom.txt"
	for round, data := range []string{"", "", "changed"} {
		if data != "" {
			writeAt(data)
		}
		r := snap(t, dir, s, opts)
		opts.Previous = r.Root
		if len(r.Stats.Problems) != 0 {
			t.Errorf("round %d: problems %+v", round, r.Stats.Problems)
		}
		got := flatten(t, s, r.Root)
		if data != "" && got[bottom].Hash != cas.Sum([]byte(data)) {
			t.Errorf("round %d: the bottom file = %+v", round, got[bottom])
		}
		sameSnapshot(t, fmt.Sprintf("round %d", round), got, fullWalk(t, dir))
	}
}
