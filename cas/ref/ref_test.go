package ref

import (
	"bytes"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

func TestRecordRoundTrip(t *testing.T) {
	for _, rec := range []*Record{
		{},
		{Size: 60 << 20, SHA256: [32]byte{1, 2}, GitOID: [20]byte{3}, Refs: []Ref{{LFS, "/r/.git/lfs/objects"}, {Git, "/r/.git/objects"}, {Clone, "/s/clones"}}},
	} {
		got, err := Decode(rec.Encode())
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(rec) && !(len(rec.Refs) == 0 && got.Size == rec.Size) {
			t.Fatalf("round trip: %+v, want %+v", got, rec)
		}
	}
	for _, bad := range [][]byte{nil, {2}, {1}, append((&Record{Size: 1}).Encode(), 0)} {
		if _, err := Decode(bad); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Decode(%x): %v, want ErrCorrupt", bad, err)
		}
	}
}

func FuzzDecodeRef(f *testing.F) {
	f.Add((&Record{Size: 5, Refs: []Ref{{LFS, "/x"}}}).Encode())
	f.Add([]byte{1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Decode(b)
		if err != nil {
			return
		}
		again, err := Decode(r.Encode())
		if err != nil || !bytes.Equal(again.Encode(), r.Encode()) {
			t.Fatalf("re-encoding differs: %v", err)
		}
	})
}

func FuzzApplyDelta(f *testing.F) {
	f.Add([]byte("hello world"), []byte{11, 5, 0x91, 0, 5})
	f.Add([]byte(""), []byte{0, 3, 3, 'a', 'b', 'c'})
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		out, err := applyDelta(base, delta)
		if err != nil {
			return
		}
		_, rest, _ := deltaSize(delta)
		dst, _, _ := deltaSize(rest)
		if int64(len(out)) != dst {
			t.Fatalf("applyDelta gave %d bytes, the delta says %d", len(out), dst)
		}
	})
}

func TestConfigValue(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"[core]\n\tbare = false\n", ""},
		{"[lfs]\n\tstorage = /big/lfs\n", "/big/lfs"},
		{"[LFS]\n  Storage = \"rel dir\" \n", "rel dir"},
		{"[lfs] storage = x # note\n[core]\nstorage = y\n", "x"},
		{"[lfs \"https://h\"]\n\taccess = basic\n[lfs]\nstorage=a\nstorage=b\n", "b"},
	} {
		if got := configValue([]byte(c.in), "lfs", "storage"); got != c.want {
			t.Errorf("configValue(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestFindRepo: a .git directory, a worktree's .git file with commondir,
// a submodule's relative gitdir, lfs.storage, and no repository.
func TestFindRepo(t *testing.T) {
	d := t.TempDir()
	treetest.PutPath(t, filepath.Join(d, "main/.git/config"), "[lfs]\n\tstorage = ../lfs-elsewhere\n")
	treetest.PutPath(t, filepath.Join(d, "main/.git/worktrees/wt/commondir"), "../..\n")
	treetest.PutPath(t, filepath.Join(d, "wt/.git"), "gitdir: "+filepath.Join(d, "main/.git/worktrees/wt")+"\n")
	treetest.PutPath(t, filepath.Join(d, "main/sub/.git"), "gitdir: ../.git/modules/sub\n")
	treetest.PutPath(t, filepath.Join(d, "main/.git/modules/sub/HEAD"), "ref: refs/heads/main\n")
	if err := os.MkdirAll(filepath.Join(d, "main/a/b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(d, "plain"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dir, git, common, lfs string }{
		{"main/a/b", "main/.git", "main/.git", "main/lfs-elsewhere"},
		{"wt", "main/.git/worktrees/wt", "main/.git", "main/lfs-elsewhere"},
		{"main/sub", "main/.git/modules/sub", "main/.git/modules/sub", "main/.git/modules/sub/lfs"},
	} {
		r, err := NewFinder().Repo(filepath.Join(d, c.dir))
		if err != nil || r == nil {
			t.Fatalf("%s: %v %v", c.dir, r, err)
		}
		want := Repo{WorkTree: filepath.Join(d, strings.TrimSuffix(c.dir, "/a/b")), GitDir: filepath.Join(d, c.git), CommonDir: filepath.Join(d, c.common), LFSDir: filepath.Join(d, c.lfs)}
		if *r != want {
			t.Errorf("%s: %+v, want %+v", c.dir, *r, want)
		}
	}
	if r, err := findRepo(filepath.Join(d, "plain")); err != nil || (r != nil && strings.HasPrefix(r.GitDir, d)) {
		t.Fatalf("plain: %+v %v", r, err)
	}
	treetest.PutPath(t, filepath.Join(d, "bad/.git"), "nonsense\n")
	if _, err := findRepo(filepath.Join(d, "bad")); err == nil {
		t.Fatal("a .git file without gitdir: accepted")
	}
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@e", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func gitOID(data []byte) [20]byte {
	return sha1.Sum(append([]byte(fmt.Sprintf("blob %d\x00", len(data))), data...))
}

// TestODB reads blobs loose, packed whole and packed as deltas (OFS and,
// with --no-delta-base-offset, REF), and rejects a missing object and a
// damaged loose object with errors.
func TestODB(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	d := t.TempDir()
	gitRun(t, d, "init", "-q")
	rng := rand.NewChaCha8([32]byte{9})
	var versions [][]byte
	v := make([]byte, 300<<10)
	_, _ = rng.Read(v)
	for i := 0; i < 4; i++ {
		v = append([]byte(nil), v...)
		copy(v[i*1000:], fmt.Sprintf("edit %d", i))
		versions = append(versions, v)
		treetest.PutPath(t, filepath.Join(d, "f"), string(v))
		gitRun(t, d, "add", "f")
		gitRun(t, d, "commit", "-q", "-m", fmt.Sprint(i))
	}
	check := func(what string) {
		t.Helper()
		odb := OpenODB(filepath.Join(d, ".git", "objects"))
		for i, v := range versions {
			oid := gitOID(v)
			if ok, err := odb.Has(oid); !ok || err != nil {
				t.Fatalf("%s: Has(version %d) = %v %v", what, i, ok, err)
			}
			rc, size, err := odb.Open(oid)
			if err != nil {
				t.Fatalf("%s: version %d: %v", what, i, err)
			}
			got, err := io.ReadAll(rc)
			rc.Close()
			if err != nil || size != int64(len(v)) || !bytes.Equal(got, v) {
				t.Fatalf("%s: version %d: %d bytes (size %d), err %v", what, i, len(got), size, err)
			}
		}
		missing := gitOID([]byte("not there"))
		if ok, _ := odb.Has(missing); ok {
			t.Fatalf("%s: Has(missing)", what)
		}
		if _, _, err := odb.Open(missing); !errors.Is(err, ErrStale) {
			t.Fatalf("%s: Open(missing): %v", what, err)
		}
	}
	check("loose")
	gitRun(t, d, "repack", "-adq", "--depth=10", "--window=10")
	check("packed, OFS deltas")
	gitRun(t, d, "-c", "repack.useDeltaBaseOffset=false", "repack", "-adfq", "--depth=10", "--window=10")
	check("packed, REF deltas")
	if vp := gitRun(t, d, "verify-pack", "-v", must(filepath.Glob(filepath.Join(d, ".git/objects/pack/*.idx")))[0]); !strings.Contains(vp, "chain length") {
		t.Fatalf("fixture has no deltas:\n%s", vp)
	}

	// A damaged loose object: an error, never a panic or wrong bytes
	// passed off (callers verify by hash).
	e := t.TempDir()
	oid := gitOID([]byte("x"))
	h := fmt.Sprintf("%x", oid)
	treetest.PutPath(t, filepath.Join(e, h[:2], h[2:]), "not zlib")
	if _, _, err := OpenODB(e).Open(oid); err == nil {
		t.Fatal("damaged loose object opened")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestCloneUnsupported: where the filesystem cannot clone, CloneFile
// says so with ErrNoClone and leaves nothing behind.
func TestCloneUnsupported(t *testing.T) {
	d := t.TempDir()
	src := filepath.Join(d, "src")
	treetest.PutPath(t, src, "content")
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = CloneFile(filepath.Join(d, "clones"), "x", f)
	if err == nil {
		t.Skip("this filesystem clones files; TestLargeReflink covers cloning")
	}
	if !errors.Is(err, ErrNoClone) {
		t.Fatalf("CloneFile: %v, want ErrNoClone", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(d, "clones")); len(ents) != 0 {
		t.Fatalf("left %d files behind", len(ents))
	}
}

func TestWant(t *testing.T) {
	d := t.TempDir()
	treetest.PutPath(t, filepath.Join(d, "repo/.git/HEAD"), "ref: refs/heads/main\n")
	treetest.PutPath(t, filepath.Join(d, "repo/.gitattributes"), "*.bin filter=lfs diff=lfs merge=lfs -text\n"+
		"media/** filter=lfs\n/top.dat filter=lfs\n**/deep/*.iso filter=lfs\nkeep.bin -filter\n# *.txt filter=lfs\n")
	treetest.PutPath(t, filepath.Join(d, "plain/x"), "")
	f := NewFinder()
	for _, c := range []struct {
		path string
		want Wanted
	}{
		{"repo/a.bin", Wanted{SHA256: true}},
		{"repo/sub/dir/a.bin", Wanted{SHA256: true}},
		{"repo/keep.bin", Wanted{GitOID: true}},
		{"repo/media/x/y.mov", Wanted{SHA256: true}},
		{"repo/top.dat", Wanted{SHA256: true}},
		{"repo/sub/top.dat", Wanted{GitOID: true}},
		{"repo/a/deep/b.iso", Wanted{SHA256: true}},
		{"repo/notes.txt", Wanted{GitOID: true}},
		{"plain/big", Wanted{}},
	} {
		p := filepath.Join(d, c.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if got := f.Want(p); got != c.want && !(c.path == "plain/big" && got.GitOID) {
			t.Errorf("Want(%s) = %+v, want %+v", c.path, got, c.want)
		}
	}
}

// TestHostileRepo: a .git file naming a missing directory, a commondir
// loop-ish path and a config with an absolute lfs.storage elsewhere:
// nothing is found, nothing panics, and nothing outside is written.
func TestHostileRepo(t *testing.T) {
	d := t.TempDir()
	treetest.PutPath(t, filepath.Join(d, "a/.git"), "gitdir: /nonexistent/turnback-test\n")
	treetest.PutPath(t, filepath.Join(d, "b/.git/commondir"), "../../../../../../../../..\n")
	treetest.PutPath(t, filepath.Join(d, "c/.git/config"), "[lfs]\n\tstorage = /proc/self\n")
	f := NewFinder()
	rec := &Record{Size: 5, SHA256: [32]byte{1}, GitOID: [20]byte{2}}
	for _, dir := range []string{"a", "b", "c"} {
		refs, err := f.Find(filepath.Join(d, dir), rec)
		if len(refs) != 0 {
			t.Errorf("%s: found %v (%v)", dir, refs, err)
		}
	}
}
