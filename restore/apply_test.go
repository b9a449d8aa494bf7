package restore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
)

// shapeCases are restores of every action shape, as (old tree, new tree).
var shapeCases = []struct {
	name     string
	old, new tree
}{
	{"create file", tree{}, tree{"f": file("hello\n", 0o644)}},
	{"create empty file", tree{}, tree{"empty": file("", 0o600)}},
	{"create nested file in new dirs",
		tree{},
		tree{"a": dir(0o755), "a/b": dir(0o750), "a/b/f": file("deep", 0o640)}},
	{"create empty dir", tree{"x": file("x", 0o644)}, tree{"x": file("x", 0o644), "e": dir(0o711)}},
	{"create nested empty dirs", tree{}, tree{"e": dir(0o755), "e/f": dir(0o755), "e/f/g": dir(0o700)}},
	{"create symlink", tree{}, tree{"l": link("some/where")}},
	{"create dangling absolute and escaping symlinks (stored as data)",
		tree{"d": dir(0o755)},
		tree{"d": dir(0o755), "d/abs": link("/etc/passwd"), "d/up": link("../../../../outside")}},
	{"create in existing dir", tree{"d": dir(0o755)}, tree{"d": dir(0o755), "d/f": file("new", 0o644), "d/l": link("f")}},
	{"delete file", tree{"f": file("bye", 0o644), "g": file("stay", 0o644)}, tree{"g": file("stay", 0o644)}},
	{"delete symlink", tree{"l": link("f"), "f": file("f", 0o644)}, tree{"f": file("f", 0o644)}},
	{"delete nested tree",
		tree{"a": dir(0o755), "a/b": dir(0o755), "a/b/c": dir(0o700), "a/b/c/f": file("1", 0o644),
			"a/b/l": link("c/f"), "a/e": dir(0o755), "a/g": file("2", 0o600)},
		tree{}},
	{"delete inside a kept dir",
		tree{"a": dir(0o755), "a/b": dir(0o755), "a/b/f": file("1", 0o644), "a/k": file("k", 0o644)},
		tree{"a": dir(0o755), "a/k": file("k", 0o644)}},
	{"delete empty dir", tree{"e": dir(0o755), "f": file("f", 0o644)}, tree{"f": file("f", 0o644)}},
	{"modify content", tree{"f": file("old content", 0o644)}, tree{"f": file("new content, longer", 0o644)}},
	{"modify to empty", tree{"f": file("something", 0o644)}, tree{"f": file("", 0o644)}},
	{"modify from empty", tree{"f": file("", 0o644)}, tree{"f": file("something", 0o644)}},
	{"modify content and mode", tree{"f": file("v1", 0o644)}, tree{"f": file("v2", 0o755)}},
	{"modify read-only file", tree{"f": file("v1", 0o444)}, tree{"f": file("v2", 0o444)}},
	{"mode only, file", tree{"f": file("same", 0o644)}, tree{"f": file("same", 0o755)}},
	{"mode only, file to no permissions", tree{"f": file("same", 0o644)}, tree{"f": file("same", 0o000)}},
	{"mode only, setuid file", tree{"f": file("same", 0o755)}, tree{"f": file("same", 0o755|fs.ModeSetuid)}},
	{"mode only, dir", tree{"d": dir(0o755), "d/f": file("f", 0o644)}, tree{"d": dir(0o700), "d/f": file("f", 0o644)}},
	{"mode only, sticky dir", tree{"d": dir(0o777)}, tree{"d": dir(0o777 | fs.ModeSticky)}},
	{"read-only dir receives new files",
		tree{"d": dir(0o755), "d/old": file("o", 0o644)},
		tree{"d": dir(0o555), "d/old": file("o2", 0o644), "d/new": file("n", 0o444), "d/l": link("new"),
			"d/sub": dir(0o555), "d/sub/f": file("f", 0o644), "d/sub/e": dir(0o500)}},
	{"new read-only dirs with content",
		tree{},
		tree{"r": dir(0o555), "r/s": dir(0o500), "r/s/f": file("f", 0o400), "r/g": file("g", 0o644)}},
	{"symlink retarget", tree{"l": link("a")}, tree{"l": link("b/c")}},
	{"file to dir",
		tree{"x": file("was a file", 0o644)},
		tree{"x": dir(0o755), "x/y": file("inside", 0o644), "x/z": dir(0o700), "x/z/w": link("../y")}},
	{"dir to file",
		tree{"x": dir(0o755), "x/y": file("inside", 0o644), "x/z": dir(0o700), "x/z/w": link("../y")},
		tree{"x": file("now a file", 0o600)}},
	{"empty dir to file", tree{"x": dir(0o755)}, tree{"x": file("f", 0o644)}},
	{"file to empty dir", tree{"x": file("f", 0o644)}, tree{"x": dir(0o755)}},
	{"file to symlink", tree{"x": file("f", 0o644)}, tree{"x": link("target")}},
	{"symlink to file", tree{"x": link("target")}, tree{"x": file("f", 0o755)}},
	{"dir to symlink",
		tree{"x": dir(0o755), "x/f": file("f", 0o644)},
		tree{"x": link("elsewhere")}},
	{"symlink to dir",
		tree{"x": link("elsewhere")},
		tree{"x": dir(0o750), "x/f": file("f", 0o644)}},
	{"symlink to a dir becomes a real dir",
		tree{"real": dir(0o755), "real/f": file("keep me", 0o644), "x": link("real")},
		tree{"real": dir(0o755), "real/f": file("keep me", 0o644), "x": dir(0o755), "x/f": file("mine", 0o644)}},
	{"swap file and dir names",
		tree{"a": file("A", 0o644), "b": dir(0o755), "b/in": file("B", 0o644)},
		tree{"a": dir(0o755), "a/in": file("B", 0o644), "b": file("A", 0o644)}},
	{"everything at once",
		tree{"keep": file("k", 0o644), "m": file("m1", 0o644), "del": dir(0o755), "del/f": file("d", 0o644),
			"flip": file("f", 0o644), "l": link("keep"), "mo": file("mo", 0o644)},
		tree{"keep": file("k", 0o644), "m": file("m2", 0o644), "flip": dir(0o755), "flip/n": file("n", 0o644),
			"l": link("m"), "mo": file("mo", 0o600), "new": dir(0o755), "new/x": link("../keep")}},
}

func TestApplyShapes(t *testing.T) {
	for _, tc := range shapeCases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			build(t, e.dir, tc.old)
			checkTree(t, e.dir, tc.old)
			as := e.actions(tc.old, tc.new)
			p := e.plan(as)
			if len(p.Blocked) > 0 || len(p.Kept) > 0 || len(p.Actions) != len(as) {
				t.Fatalf("plan: %d of %d actions, blocked %v, kept %v", len(p.Actions), len(as), p.Blocked, p.Kept)
			}
			o := e.opts()
			// Whenever the restore places something, the directory it
			// lands in must not have received its final (maybe read-only)
			// mode yet: modes are applied last.
			o.Hook = func(step string) error {
				rest, ok := strings.CutPrefix(step, "place ")
				if !ok {
					return nil
				}
				parent, _ := manifest.SplitPath(rest)
				if parent == "" {
					return nil
				}
				fi, err := os.Lstat(filepath.Join(e.dir, parent))
				if err != nil {
					return nil // created by this restore, later
				}
				if want := tc.new[parent]; fi.IsDir() && fi.Mode().Perm()&0o200 == 0 && want.Mode&0o200 == 0 {
					if old, ok := tc.old[parent]; !ok || old.Mode&0o200 != 0 {
						t.Errorf("at %q: %s already has its final mode %v", step, parent, fi.Mode().Perm())
					}
				}
				return nil
			}
			res, err := Apply(context.Background(), e.root(), p, o)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			checkTree(t, e.dir, tc.new)
			checkLists(t, res, as)
			if len(res.Kept) > 0 {
				t.Errorf("Kept = %v", res.Kept)
			}
			checkClean(t, e)
			if n := e.commitCount(); n != 1 {
				t.Errorf("Commit called %d times", n)
			}
			// And back again.
			back := e.actions(tc.new, tc.old)
			res, err = Apply(context.Background(), e.root(), e.plan(back), e.opts())
			if err != nil {
				t.Fatalf("Apply back: %v", err)
			}
			checkTree(t, e.dir, tc.old)
			checkLists(t, res, back)
			checkClean(t, e)
		})
	}
}

// TestApplyLargeFile restores chunked content (several chunks streamed
// from the store).
func TestApplyLargeFile(t *testing.T) {
	e := newEnv(t)
	big := make([]byte, 3*cas.MaxChunk+12345)
	x := uint32(1)
	for i := range big {
		x = x*1664525 + 1013904223
		big[i] = byte(x >> 24)
	}
	old := tree{"big": file("small", 0o644)}
	new := tree{"big": file(string(big), 0o644), "d": dir(0o755), "d/big2": file(string(big[:cas.MaxChunk+1]), 0o600)}
	build(t, e.dir, old)
	as := e.actions(old, new)
	if _, chunked, err := e.store.Chunks(context.Background(), as[0].New.Hash); err != nil || !chunked {
		t.Fatalf("test content is not chunked: %v", err)
	}
	applyAll(t, e, as, new)
}

// TestApplyReadOnlyDirUnprivileged runs the read-only directory cases
// without root, where permission bits are enforced.
func TestApplyReadOnlyDirUnprivileged(t *testing.T) {
	if unprivileged(t) {
		return
	}
	for _, tc := range shapeCases {
		if !strings.Contains(tc.name, "read-only") {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			build(t, e.dir, tc.old)
			as := e.actions(tc.old, tc.new)
			if _, err := Apply(context.Background(), e.root(), e.plan(as), e.opts()); err != nil {
				t.Fatalf("Apply: %v", err)
			}
			checkTree(t, e.dir, tc.new)
			checkClean(t, e)
		})
	}
}

// TestApplyIntoReadOnlyDirUnprivileged: the reverse of a restore that made
// a directory read-only. The directory is read-only on disk now, and the
// restore must remove from it, stage and place into it before it gives
// the directory its old (writable) mode back.
func TestApplyIntoReadOnlyDirUnprivileged(t *testing.T) {
	if unprivileged(t) {
		return
	}
	cases := []struct {
		name     string
		old, new tree
	}{
		{"remove from read-only dir",
			tree{"d": dir(0o555), "d/f": file("agent's", 0o644)},
			tree{"d": dir(0o755)}},
		{"add to read-only dir",
			tree{"d": dir(0o555)},
			tree{"d": dir(0o755), "d/f": file("user's", 0o644)}},
		{"rewrite in read-only dir",
			tree{"d": dir(0o555), "d/f": file("v2", 0o644)},
			tree{"d": dir(0o755), "d/f": file("v1", 0o644)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			build(t, e.dir, tc.old)
			as := e.actions(tc.old, tc.new)
			if _, err := Apply(context.Background(), e.root(), e.plan(as), e.opts()); err != nil {
				t.Errorf("Apply: %v", err)
				if journalExists(t, e) {
					_, rerr := Recover(context.Background(), e.root(), e.opts())
					t.Errorf("the journal stays; Recover: %v", rerr)
				}
			}
			checkTree(t, e.dir, tc.new)
		})
	}
}

// TestApplyFailureBeforeJournal injects a fault at every step before the
// commit point (a full disk while staging, a damaged or missing blob, a
// cancelled context): Apply returns the error and the work tree is
// exactly as it was, timestamps included, with nothing left behind.
func TestApplyFailureBeforeJournal(t *testing.T) {
	old := tree{
		"keep": file("keep", 0o644), "m": file("m1", 0o644), "d": dir(0o755), "d/f": file("d/f", 0o644),
		"d/sub": dir(0o700), "d/sub/g": file("g", 0o600), "flip": file("flip", 0o644), "l": link("m"),
		"gone": dir(0o755), "gone/x": file("x", 0o644),
	}
	new := tree{
		"keep": file("keep", 0o644), "m": file("m2", 0o644), "d": dir(0o555), "d/f": file("d/f2", 0o600),
		"d/sub": dir(0o700), "d/sub/g": file("g2", 0o600), "d/sub/h": file("h", 0o644),
		"flip": dir(0o755), "flip/in": file("in", 0o644), "l": file("was a link", 0o644),
		"n": dir(0o755), "n/o": dir(0o755), "n/o/p": file("p", 0o644),
	}
	steps := recordSteps(t, old, new)
	var faults []string
	for _, s := range steps {
		if strings.HasPrefix(s, "stage ") || s == "journal" {
			faults = append(faults, s)
		}
	}
	if len(faults) < 8 {
		t.Fatalf("only %d steps before the journal: %q", len(faults), steps)
	}
	type fault struct {
		name string
		set  func(e *env, o *Options, as []Action) error // returns the error Apply must wrap, if any
	}
	var cases []fault
	for _, s := range faults {
		cases = append(cases, fault{"hook at " + s, func(e *env, o *Options, as []Action) error {
			o.Hook = func(step string) error {
				if step == s {
					return errInjected
				}
				return nil
			}
			return errInjected
		}})
	}
	// The second content staged errors where it should end.
	cases = append(cases, fault{"corrupt stream", func(e *env, o *Options, as []Action) error {
		var n atomic.Int32 // Open runs in staging and in its read-ahead
		o.Source = faultSource{Source: e.store, wrap: func(h cas.Hash, r io.Reader) io.Reader {
			if n.Add(1) == 2 {
				return errAtEOF{r, cas.ErrCorrupt}
			}
			return r
		}}
		return cas.ErrCorrupt
	}})
	cases = append(cases, fault{"short content", func(e *env, o *Options, as []Action) error {
		var n atomic.Int32
		o.Source = faultSource{Source: e.store, wrap: func(h cas.Hash, r io.Reader) io.Reader {
			if n.Add(1) == 1 {
				return io.LimitReader(r, 1) // the first staged file has more than 1 byte
			}
			return r
		}}
		return cas.ErrCorrupt
	}})
	cases = append(cases, fault{"damaged blob in the store", func(e *env, o *Options, as []Action) error {
		for _, a := range as {
			if a.Path == "n/o/p" {
				ctx := context.Background()
				if err := e.mem.Set(ctx, cas.Entry{Key: cas.BlobKey(a.New.Hash), Value: []byte("\x00not p")}); err != nil {
					return err
				}
			}
		}
		return cas.ErrCorrupt
	}})
	cases = append(cases, fault{"missing blob", func(e *env, o *Options, as []Action) error {
		for _, a := range as {
			if a.Path == "d/sub/h" {
				if err := e.mem.Delete(context.Background(), cas.BlobKey(a.New.Hash)); err != nil {
					return err
				}
			}
		}
		return cas.ErrNotFound
	}})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			build(t, e.dir, old)
			times := mtimes(t, e.dir)
			as := e.actions(old, new)
			p := e.plan(as)
			o := e.opts()
			want := tc.set(e, &o, as)
			res, err := Apply(context.Background(), e.root(), p, o)
			if err == nil || !errors.Is(err, want) {
				t.Fatalf("Apply = %v, %v; want an error wrapping %v", res, err, want)
			}
			checkTree(t, e.dir, old)
			checkMtimes(t, e.dir, times)
			checkClean(t, e)
			if n := e.commitCount(); n != 0 {
				t.Errorf("Commit called %d times", n)
			}
			if did, err := Recover(context.Background(), e.root(), e.opts()); did || err != nil {
				t.Errorf("Recover after a clean failure = %v, %v", did, err)
			}
		})
	}
}

// TestApplyCorruptChunk: a chunk of a large file is damaged in the store;
// the error surfaces while the file streams, after part of it was written
// to its staging file.
func TestApplyCorruptChunk(t *testing.T) {
	e := newEnv(t)
	big := []byte(strings.Repeat("0123456789abcdefghijklmnopqrstuvwxyz\n", 3*cas.MaxChunk/37))
	for i := range big {
		big[i] ^= byte(i * 7 >> 10)
	}
	old := tree{"big": file("small", 0o644), "other": file("o", 0o644)}
	new := tree{"big": file(string(big), 0o644), "other": file("o2", 0o644)}
	build(t, e.dir, old)
	times := mtimes(t, e.dir)
	as := e.actions(old, new)
	refs, chunked, err := e.store.Chunks(context.Background(), as[0].New.Hash)
	if err != nil || !chunked || len(refs) < 3 {
		t.Fatalf("test content: %d chunks, %v", len(refs), err)
	}
	last := refs[len(refs)-1]
	if err := e.mem.Set(context.Background(), cas.Entry{Key: cas.BlobKey(last.Hash), Value: append([]byte{0}, make([]byte, last.Size)...)}); err != nil {
		t.Fatal(err)
	}
	_, err = Apply(context.Background(), e.root(), e.plan(as), e.opts())
	if !errors.Is(err, cas.ErrCorrupt) {
		t.Fatalf("Apply = %v, want ErrCorrupt", err)
	}
	if !strings.Contains(err.Error(), "big") {
		t.Errorf("error %q does not name the path", err)
	}
	checkTree(t, e.dir, old)
	checkMtimes(t, e.dir, times)
	checkClean(t, e)
}

// TestApplyKept: a restore removing a directory that holds a file the
// snapshot does not know (an ignored one) keeps the directory and does
// the rest.
func TestApplyKept(t *testing.T) {
	old := tree{"d": dir(0o755), "d/a": file("a", 0o644), "d/sub": dir(0o755), "d/sub/b": file("b", 0o644),
		"d/l": link("a"), "x": file("x", 0o644)}
	new := tree{"x": file("x2", 0o644)}

	t.Run("ignored file known at plan time", func(t *testing.T) {
		e := newEnv(t)
		build(t, e.dir, old)
		build(t, e.dir, tree{"d/sub/ignored.log": file("log", 0o644)})
		as := e.actions(old, new)
		p := e.plan(as)
		wantKept := []string{"d", "d/sub"}
		var kept []string
		for _, k := range p.Kept {
			kept = append(kept, k.Path)
			if !strings.Contains(k.Reason, "d/sub/ignored.log") {
				t.Errorf("Kept %s: reason %q does not name the ignored file", k.Path, k.Reason)
			}
		}
		if !eqStrings(kept, wantKept) {
			t.Fatalf("plan.Kept = %v, want %v", p.Kept, wantKept)
		}
		if len(p.Blocked) > 0 {
			t.Errorf("Blocked = %v", p.Blocked)
		}
		res, err := Apply(context.Background(), e.root(), p, e.opts())
		if err != nil {
			t.Fatal(err)
		}
		checkTree(t, e.dir, tree{"d": dir(0o755), "d/sub": dir(0o755), "d/sub/ignored.log": file("log", 0o644), "x": file("x2", 0o644)})
		if !eqStrings(res.Deleted, []string{"d/a", "d/l", "d/sub/b"}) || !eqStrings(res.Restored, []string{"x"}) || len(res.Created) > 0 {
			t.Errorf("Result = %+v", res)
		}
		checkClean(t, e)
	})

	t.Run("file appears after planning", func(t *testing.T) {
		e := newEnv(t)
		build(t, e.dir, old)
		as := e.actions(old, new)
		p := e.plan(as)
		if len(p.Kept) > 0 || len(p.Actions) != len(as) {
			t.Fatalf("plan: %+v", p)
		}
		build(t, e.dir, tree{"d/sub/late": file("late", 0o644)})
		res, err := Apply(context.Background(), e.root(), p, e.opts())
		if err != nil {
			t.Fatal(err)
		}
		checkTree(t, e.dir, tree{"d": dir(0o755), "d/sub": dir(0o755), "d/sub/late": file("late", 0o644), "x": file("x2", 0o644)})
		var kept []string
		for _, k := range res.Kept {
			kept = append(kept, k.Path)
		}
		if !eqStrings(kept, []string{"d/sub", "d"}) && !eqStrings(kept, []string{"d", "d/sub"}) {
			t.Errorf("Result.Kept = %v, want d and d/sub", res.Kept)
		}
		if !eqStrings(res.Deleted, []string{"d/a", "d/l", "d/sub/b"}) || !eqStrings(res.Restored, []string{"x"}) {
			t.Errorf("Result = %+v", res)
		}
		checkClean(t, e)
	})
}

// TestApplyWritten: Result.Written names every file whose content the
// restore wrote, with its hash and the file's stat data.
func TestApplyWritten(t *testing.T) {
	e := newEnv(t)
	old := tree{"mod": file("v1", 0o644), "modeonly": file("same", 0o644), "flip": dir(0o755),
		"l": link("x"), "del": file("d", 0o644), "same": file("s", 0o644), "lnk2": file("f", 0o644)}
	new := tree{"mod": file("version 2", 0o600), "modeonly": file("same", 0o755), "flip": file("flipped", 0o644),
		"l": file("from link", 0o755), "new": dir(0o755), "new/f": file("new file", 0o640), "new/e": file("", 0o644),
		"same": file("s", 0o644), "lnk2": link("mod")}
	build(t, e.dir, old)
	as := e.actions(old, new)
	res, err := Apply(context.Background(), e.root(), e.plan(as), e.opts())
	if err != nil {
		t.Fatal(err)
	}
	checkTree(t, e.dir, new)
	want := map[string]bool{"mod": true, "flip": true, "l": true, "new/f": true, "new/e": true}
	got := map[string]bool{}
	for _, w := range res.Written {
		if got[w.Path] {
			t.Errorf("Written lists %s twice", w.Path)
		}
		got[w.Path] = true
		n, ok := new[w.Path]
		if !ok || !want[w.Path] {
			t.Errorf("Written lists %s", w.Path)
			continue
		}
		if w.Hash != e.put(n.Data) {
			t.Errorf("%s: Written hash %s, want the content's", w.Path, w.Hash.Short())
		}
		if w.Info == nil || w.Info.Size() != int64(len(n.Data)) || !w.Info.Mode().IsRegular() || w.Info.Mode().Perm() != n.Mode {
			t.Errorf("%s: Written info %v", w.Path, w.Info)
			continue
		}
		fi, err := os.Lstat(filepath.Join(e.dir, w.Path))
		if err != nil || !os.SameFile(fi, w.Info) || !fi.ModTime().Equal(w.Info.ModTime()) {
			t.Errorf("%s: Written info is not the file's: %v", w.Path, err)
		}
	}
	for p := range want {
		if !got[p] {
			t.Errorf("Written misses %s", p)
		}
	}
}

func TestApplyEmptyPlan(t *testing.T) {
	e := newEnv(t)
	build(t, e.dir, tree{"f": file("f", 0o644)})
	res, err := Apply(context.Background(), e.root(), &Plan{}, e.opts())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Restored)+len(res.Created)+len(res.Deleted)+len(res.Written) > 0 {
		t.Errorf("Result = %+v", res)
	}
	checkTree(t, e.dir, tree{"f": file("f", 0o644)})
	checkClean(t, e)
	if n := e.commitCount(); n != 1 {
		t.Errorf("Commit called %d times, want 1", n)
	}
}

// TestApplyCommitError: an error from Commit fails the restore with the
// journal in place (the files are already restored); Recover commits.
func TestApplyCommitError(t *testing.T) {
	e := newEnv(t)
	old := tree{"f": file("1", 0o644)}
	new := tree{"f": file("2", 0o644)}
	build(t, e.dir, old)
	o := e.opts()
	o.Commit = func(context.Context, []byte) error { return errInjected }
	if _, err := Apply(context.Background(), e.root(), e.plan(e.actions(old, new)), o); !errors.Is(err, errInjected) {
		t.Fatalf("Apply = %v", err)
	}
	if !journalExists(t, e) {
		t.Fatal("journal removed although Commit failed")
	}
	did, err := Recover(context.Background(), e.root(), e.opts())
	if !did || err != nil {
		t.Fatalf("Recover = %v, %v", did, err)
	}
	checkTree(t, e.dir, new)
	checkClean(t, e)
	if e.commitCount() != 1 || string(e.commits[0]) != string(e.opts().Meta) {
		t.Errorf("commits = %q", e.commits)
	}
}

// TestApplyManyDirs restores into more directories than the restore
// keeps open at once (handles are closed and reopened on demand).
func TestApplyManyDirs(t *testing.T) {
	e := newEnv(t)
	old, new := tree{}, tree{}
	for i := 0; i < maxOpenDirs+40; i++ {
		d := fmt.Sprintf("d%02d/s%03d", i%10, i)
		old[d[:3]], new[d[:3]] = dir(0o755), dir(0o755)
		old[d], new[d] = dir(0o755), dir(0o700)
		old[d+"/f"], new[d+"/f"] = file("old", 0o644), file("new "+d, 0o644)
		old[d+"/gone"] = link("f")
		new[d+"/n"] = dir(0o755)
		new[d+"/n/x"] = link("../f")
	}
	build(t, e.dir, old)
	as := e.actions(old, new)
	applyAll(t, e, as, new)
}

// TestApplyProgress: Progress counts every step, and never more than
// its Total.
func TestApplyProgress(t *testing.T) {
	e := newEnv(t)
	build(t, e.dir, crashOld)
	var pr Progress
	o := e.opts()
	o.Progress = &pr
	steps := 0
	o.Hook = func(string) error {
		steps++
		if pr.Done.Load() > pr.Total.Load() {
			t.Errorf("progress %d of %d", pr.Done.Load(), pr.Total.Load())
		}
		return nil
	}
	if _, err := Apply(context.Background(), e.root(), e.plan(e.actions(crashOld, crashNew)), o); err != nil {
		t.Fatal(err)
	}
	if got := pr.Done.Load(); got != int64(steps) || got > pr.Total.Load() {
		t.Errorf("progress %d of %d after %d steps", got, pr.Total.Load(), steps)
	}
	t.Logf("progress %d of %d at the end", pr.Done.Load(), pr.Total.Load())
}

// applyAll restores as with e's options and checks that the work tree
// is then want, the result lists as, and nothing is left behind.
func applyAll(t *testing.T, e *env, as []Action, want tree) {
	t.Helper()
	res, err := Apply(context.Background(), e.root(), e.plan(as), e.opts())
	if err != nil {
		t.Fatal(err)
	}
	checkTree(t, e.dir, want)
	checkLists(t, res, as)
	checkClean(t, e)
}

// TestApplyReady: Ready runs once, after every file is staged and before
// the commit point (no journal yet); an error from it leaves the work
// tree as it was, with no staging file, journal or staging list, and is
// returned as it is; without an error the restore goes on.
func TestApplyReady(t *testing.T) {
	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprintf("fail=%v", fail), func(t *testing.T) {
			e := newEnv(t)
			old := tree{"a": file("1", 0o644), "d": dir(0o755), "d/b": file("2", 0o644)}
			new := tree{"a": file("one", 0o644), "d": dir(0o755), "d/b": file("two", 0o600), "c": file("3", 0o644)}
			build(t, e.dir, old)
			o := e.opts()
			calls := 0
			o.Ready = func() error {
				calls++
				if journalExists(t, e) {
					t.Error("the journal exists when Ready is called")
				}
				if n := len(stagingLeftovers(t, e.dir)); n != 3 {
					t.Errorf("%d staged files when Ready is called; want 3", n)
				}
				if fail {
					return errInjected
				}
				return nil
			}
			res, err := Apply(context.Background(), e.root(), e.plan(e.actions(old, new)), o)
			if calls != 1 {
				t.Fatalf("Ready called %d times", calls)
			}
			if fail {
				if err != errInjected {
					t.Fatalf("Apply = %v; want Ready's error as it is", err)
				}
				checkTree(t, e.dir, old)
				checkClean(t, e)
				if e.commitCount() != 0 {
					t.Fatal("committed although Ready failed")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkTree(t, e.dir, new)
			checkClean(t, e)
			checkLists(t, res, e.actions(old, new))
		})
	}
}
