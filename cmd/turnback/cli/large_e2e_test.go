package cli

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
)

// Files over the size limit protected by reference (issue 14): Git LFS
// objects, git blobs (loose and packed), reflink clones, and the loud
// failure where nothing protects them. git and git-lfs build the
// fixtures only: turnback runs with an empty PATH.

// largeData returns n deterministic, incompressible bytes.
func largeData(seed uint64, n int) []byte {
	r := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8), 14})
	b := make([]byte, n)
	_, _ = r.Read(b)
	return b
}

// newLargeEnv is a cliEnv whose turnback runs without git on PATH and with
// its store in a known place.
func newLargeEnv(t *testing.T) (*cliEnv, string) {
	t.Helper()
	e := newUndoEnv(t)
	empty := t.TempDir()
	store := filepath.Join(filepath.Dir(e.dir), "store")
	e.extra = append(e.extra, "PATH="+empty, "TURNBACK_STORE="+store, "TURNBACK_AUTO_WATCH=0")
	return e, store
}

// newGitLargeEnv is a newLargeEnv whose work tree is a new git
// repository, with the size limit sizeLimit; it skips the test without git.
func newGitLargeEnv(t *testing.T, sizeLimit string) *cliEnv {
	t.Helper()
	needTools(t, "git")
	e, _ := newLargeEnv(t)
	e.extra = append(e.extra, "TURNBACK_SIZE_LIMIT="+sizeLimit)
	gitIn(t, e.dir, "init", "-q")
	return e
}

func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (.ci/run installs it): %v", tool, err)
		}
	}
}

// git runs git in dir for a fixture, isolated from the user's config.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir+"/.githome-none", "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func sameBytes(t *testing.T, p string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: %d bytes differ from the expected %d", p, len(got), len(want))
	}
}

func absent(t *testing.T, p string) {
	t.Helper()
	if _, err := os.Lstat(p); !os.IsNotExist(err) {
		t.Fatalf("%s: want absent, got %v", p, err)
	}
}

// TestLargeLFS: in a Git LFS repository (smudged) a turn deletes a 15 MB
// file and rewrites (and git-adds) a 60 MB one; undo restores both byte
// for byte from .git/lfs/objects, redo brings the turn's versions back,
// and the store grows by less than 1 MB.
func TestLargeLFS(t *testing.T) {
	testtier.Slow(t)
	t.Parallel()
	needTools(t, "git", "git-lfs")
	e, store := newLargeEnv(t)
	gitIn(t, e.dir, "init", "-q")
	gitIn(t, e.dir, "lfs", "install", "--local")
	gitIn(t, e.dir, "lfs", "track", "*.bin")
	a, b, b2 := largeData(1, 15<<20), largeData(2, 60<<20), largeData(3, 60<<20)
	e.write("a.bin", string(a))
	e.write("b.bin", string(b))
	e.write("notes.txt", "hello\n")
	gitIn(t, e.dir, "add", "-A")
	gitIn(t, e.dir, "commit", "-q", "-m", "v1")

	r := e.ok("snap")
	if strings.Contains(r.stderr, "unprotected") {
		t.Fatalf("LFS files reported unprotected: %v", r)
	}
	before := treetest.DiskUsage(t, store)
	e.rm("a.bin")
	e.write("b.bin", string(b2))
	gitIn(t, e.dir, "add", "-A") // the agent stages its work: LFS stores the new object
	e.ok("end")

	doc := e.jsonOK("undo")
	if doc.Turns != 1 || !slices.Equal(doc.Created, []string{"a.bin"}) || !slices.Equal(doc.Restored, []string{"b.bin"}) || len(doc.NotRestorable) != 0 {
		t.Fatalf("undo: %+v", doc)
	}
	sameBytes(t, e.path("a.bin"), a)
	sameBytes(t, e.path("b.bin"), b)
	doc = e.jsonOK("redo")
	if doc.Turns != 1 || !slices.Equal(doc.Deleted, []string{"a.bin"}) || !slices.Equal(doc.Restored, []string{"b.bin"}) {
		t.Fatalf("redo: %+v", doc)
	}
	absent(t, e.path("a.bin"))
	sameBytes(t, e.path("b.bin"), b2)
	if grew := treetest.DiskUsage(t, store) - before; grew >= 1<<20 {
		t.Fatalf("store grew by %d bytes for files held by LFS", grew)
	}
	e.ok("verify")
	if in := largeInfo(t, e); in.ByReference != 135<<20 || in.Unprotected != 0 {
		t.Fatalf("info: %+v, want 135 MiB by reference", in)
	}
}

// TestLargeLFSStale: an LFS object rewritten with other bytes (same size)
// makes the file not restorable, with the reason; nothing is written.
func TestLargeLFSStale(t *testing.T) {
	testtier.Slow(t)
	t.Parallel()
	needTools(t, "git", "git-lfs")
	e, _ := newLargeEnv(t)
	gitIn(t, e.dir, "init", "-q")
	gitIn(t, e.dir, "lfs", "install", "--local")
	gitIn(t, e.dir, "lfs", "track", "*.bin")
	a := largeData(4, 15<<20)
	e.write("a.bin", string(a))
	gitIn(t, e.dir, "add", "-A")
	gitIn(t, e.dir, "commit", "-q", "-m", "v1")
	e.ok("snap")
	e.rm("a.bin")
	e.ok("end")
	objs, _ := filepath.Glob(e.path(".git/lfs/objects/*/*/*"))
	if len(objs) != 1 {
		t.Fatalf("LFS objects: %q", objs)
	}
	_ = os.Chmod(objs[0], 0o644)
	treetest.PutPath(t, objs[0], string(largeData(5, 15<<20)))
	r := e.expect(exitIncomplete, "--json", "undo")
	var doc struct {
		Incomplete    bool              `json:"incomplete"`
		NotRestorable []string          `json:"not_restorable"`
		Reasons       map[string]string `json:"reasons"`
		ExitCode      int               `json:"exit_code"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v: %v", r, err)
	}
	if !doc.Incomplete || doc.ExitCode != exitIncomplete || !slices.Equal(doc.NotRestorable, []string{"a.bin"}) ||
		!strings.Contains(doc.Reasons["a.bin"], "other content") {
		t.Fatalf("stale LFS object: %+v\n%v", doc, r)
	}
	absent(t, e.path("a.bin"))
	if ents, _ := os.ReadDir(e.dir); len(ents) != 2 { // .git, .gitattributes
		t.Fatalf("work tree holds %d entries after a refused restore", len(ents))
	}
}

// TestLargeGit: a committed 12 MB file deleted by a turn comes back from
// git's object database, loose and, after git gc, packed as a delta.
func TestLargeGit(t *testing.T) {
	testtier.Slow(t)
	t.Parallel()
	needTools(t, "git")
	e, store := newLargeEnv(t)
	gitIn(t, e.dir, "init", "-q")
	v1 := largeData(6, 12<<20)
	v2 := slices.Clone(v1)
	copy(v2[5<<20:], []byte("an edit in the middle of the file"))
	e.write("data.raw", string(v1))
	gitIn(t, e.dir, "add", "-A")
	gitIn(t, e.dir, "commit", "-q", "-m", "v1")
	e.write("data.raw", string(v2))
	gitIn(t, e.dir, "commit", "-q", "-am", "v2")

	turn := func(want []byte) {
		t.Helper()
		r := e.ok("snap")
		if strings.Contains(r.stderr, "unprotected") {
			t.Fatalf("git-tracked file reported unprotected: %v", r)
		}
		e.rm("data.raw")
		e.ok("end")
		doc := e.jsonOK("undo")
		if !slices.Equal(doc.Created, []string{"data.raw"}) {
			t.Fatalf("undo: %+v", doc)
		}
		sameBytes(t, e.path("data.raw"), want)
	}
	turn(v2) // loose objects
	gitIn(t, e.dir, "gc", "-q", "--aggressive")
	if loose, _ := filepath.Glob(e.path(".git/objects/??/*")); len(loose) != 0 {
		t.Fatalf("git gc left loose objects: %q", loose)
	}
	oid1 := strings.TrimSpace(gitIn(t, e.dir, "rev-parse", "HEAD~1:data.raw"))
	packs, _ := filepath.Glob(e.path(".git/objects/pack/*.idx"))
	vp := gitIn(t, e.dir, append([]string{"verify-pack", "-v"}, packs...)...)
	deltified := false
	for _, line := range strings.Split(vp, "\n") {
		if f := strings.Fields(line); len(f) >= 7 && f[0] == oid1 {
			deltified = true
		}
	}
	if !deltified {
		t.Fatalf("fixture: v1 is not stored as a delta after git gc:\n%s", vp)
	}
	e.write("data.raw", string(v1)) // the older, deltified version
	turn(v1)
	if n := treetest.DiskUsage(t, store); n > 4<<20 {
		t.Fatalf("store holds %d bytes for content git holds", n)
	}
}

// TestLargeUnprotected: a plain folder's preexisting 60 MB file is named
// on stderr at snap; a turn that deletes it cannot be undone: exit 5,
// "incomplete": true, and the turn, which changed nothing else, stays
// on the undo stack.
func TestLargeUnprotected(t *testing.T) {
	t.Parallel()
	e, _ := newLargeEnv(t)
	big := largeData(7, 60<<20)
	e.write("big.bin", string(big))
	e.write("small.txt", "x\n")
	r := e.ok("snap")
	if !strings.Contains(r.stderr, "big.bin (60.0 MiB) is unprotected") || !strings.Contains(r.stderr, "TURNBACK_SIZE_LIMIT") || !strings.Contains(r.stderr, ".turnbackignore") {
		t.Fatalf("snap did not name the unprotected file: %v", r)
	}
	e.rm("big.bin")
	e.ok("end")
	r = e.expect(exitIncomplete, "--json", "undo")
	var doc struct {
		Turns         int      `json:"turns"`
		Incomplete    bool     `json:"incomplete"`
		NotRestorable []string `json:"not_restorable"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v: %v", r, err)
	}
	if !doc.Incomplete || doc.Turns != 0 || !slices.Equal(doc.NotRestorable, []string{"big.bin"}) {
		t.Fatalf("undo of an unprotected deletion: %+v\n%v", doc, r)
	}
	r = e.expect(exitIncomplete, "undo")
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if !strings.Contains(lines[len(lines)-1], "incomplete: 1 path could not be restored") {
		t.Fatalf("last line does not say the undo is incomplete: %v", r)
	}
	if r := e.ok("--json", "redo"); !strings.Contains(r.stdout, `"turns": 0`) {
		t.Fatalf("the turn moved to the redo stack: %v", r)
	}
	if r := e.ok("log"); !strings.Contains(r.stdout, "[changed 1 unprotected file, not undoable: big.bin]") {
		t.Fatalf("log does not mark the turn: %v", r)
	}
	var log struct {
		Turns []struct {
			Turn        int      `json:"turn"`
			Unprotected []string `json:"unprotected"`
		} `json:"turns"`
	}
	if r := e.ok("--json", "log"); json.Unmarshal([]byte(r.stdout), &log) != nil || len(log.Turns) != 1 || !slices.Equal(log.Turns[0].Unprotected, []string{"big.bin"}) {
		t.Fatalf("log --json: %+v", log)
	}
	if in := largeInfo(t, e); in.Unprotected != 60<<20 || in.ByReference != 0 || in.ByCopy != 2 {
		t.Fatalf("info: %+v, want 60 MiB unprotected, 2 bytes by copy", in)
	}
}

type largeInfoDoc struct {
	ByCopy      int64 `json:"bytes_by_copy"`
	ByReference int64 `json:"bytes_by_reference"`
	Unprotected int64 `json:"bytes_unprotected"`
}

func largeInfo(t *testing.T, e *cliEnv) largeInfoDoc {
	t.Helper()
	r := e.ok("--json", "info")
	var in largeInfoDoc
	if err := json.Unmarshal([]byte(r.stdout), &in); err != nil {
		t.Fatalf("%v: %v", r, err)
	}
	if r := e.ok("info"); !strings.Contains(r.stdout, "protected:  ") {
		t.Fatalf("info does not say how content is protected: %v", r)
	}
	return in
}

// TestLargeReflink: on a filesystem that clones files (a small XFS with
// reflink=1 on a loop device), the preexisting 60 MB file of a plain
// folder is cloned into the store at snap, O(1), and undo brings it back.
func TestLargeReflink(t *testing.T) {
	testtier.Slow(t)
	t.Parallel()
	mnt := reflinkMount(t)
	e, _ := newLargeEnv(t)
	e.dir = filepath.Join(mnt, "work")
	store := filepath.Join(mnt, "store")
	e.extra = append(e.extra, "TURNBACK_STORE="+store)
	if err := os.MkdirAll(e.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	big := largeData(8, 60<<20)
	e.write("big.bin", string(big))
	r := e.ok("snap")
	if strings.Contains(r.stderr, "unprotected") {
		t.Fatalf("a cloned file reported unprotected: %v", r)
	}
	e.rm("big.bin")
	e.ok("end")
	doc := e.jsonOK("undo")
	if doc.Turns != 1 || !slices.Equal(doc.Created, []string{"big.bin"}) {
		t.Fatalf("undo: %+v", doc)
	}
	sameBytes(t, e.path("big.bin"), big)
	// The clone goes once no live snapshot holds the content.
	clones, _ := filepath.Glob(filepath.Join(store, "clones", "*"))
	if len(clones) != 1 {
		t.Fatalf("clones: %q", clones)
	}
	// The undone turn stays redoable (its before-state holds the
	// content) until a turn that changes the folder ends.
	e.rm("big.bin")
	e.ok("snap")
	e.ok("gc")
	if clones, _ := filepath.Glob(filepath.Join(store, "clones", "*")); len(clones) != 1 {
		t.Fatalf("gc dropped the clone of content a redo still needs: %q", clones)
	}
	e.write("next.txt", "the next turn\n")
	e.ok("end")
	e.ok("gc")
	if clones, _ := filepath.Glob(filepath.Join(store, "clones", "*")); len(clones) != 0 {
		t.Fatalf("gc kept clones of dead content: %q", clones)
	}
}

// reflinkMount mounts a small XFS image with reflink=1 through a loop
// device and returns its mount point (unmounted at cleanup); it skips
// the test, saying why, where the machine cannot.
func reflinkMount(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("reflink test: needs root to mount a loop device")
	}
	needTools(t, "mkfs.xfs", "mount", "umount")
	dir := t.TempDir()
	img, mnt := filepath.Join(dir, "xfs.img"), filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, 320<<20); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mkfs.xfs", "-q", "-m", "reflink=1", img).CombinedOutput(); err != nil {
		t.Skipf("reflink test: mkfs.xfs -m reflink=1 failed: %v\n%s", err, out)
	}
	if out, err := exec.Command("mount", "-o", "loop", img, mnt).CombinedOutput(); err != nil {
		t.Skipf("reflink test: cannot mount a loop device here: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v\n%s", mnt, err, out)
		}
	})
	return mnt
}

// TestLargeIncompleteTurnMoves: a turn that deleted an unprotected file
// and edited another: undo restores the edit, lists the file, exits 5,
// and the turn moves to the redo stack (redo works, exit 0).
func TestLargeIncompleteTurnMoves(t *testing.T) {
	t.Parallel()
	e, _ := newLargeEnv(t)
	e.extra = append(e.extra, "TURNBACK_SIZE_LIMIT=1M")
	e.write("big.bin", string(largeData(9, 2<<20)))
	e.write("a.txt", "one\n")
	e.ok("snap")
	e.rm("big.bin")
	e.write("a.txt", "two\n")
	e.ok("end")
	r := e.expect(exitIncomplete, "--json", "undo")
	var doc struct {
		Turns         int      `json:"turns"`
		Restored      []string `json:"restored"`
		NotRestorable []string `json:"not_restorable"`
		Incomplete    bool     `json:"incomplete"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v: %v", r, err)
	}
	if doc.Turns != 1 || !doc.Incomplete || !slices.Equal(doc.Restored, []string{"a.txt"}) || !slices.Equal(doc.NotRestorable, []string{"big.bin"}) {
		t.Fatalf("undo: %+v\n%v", doc, r)
	}
	e.same("after undo", treetest.Tree{"a.txt": treetest.File("one\n", 0o644)})
	d := e.jsonOK("redo")
	if d.Turns != 1 || !slices.Equal(d.Restored, []string{"a.txt"}) {
		t.Fatalf("redo: %+v", d)
	}
	e.same("after redo", treetest.Tree{"a.txt": treetest.File("two\n", 0o644)})
}

// TestLargeGitStale: the git blob a reference names is gone (removed
// from the object database): not restorable, with the reason; an
// object file replaced by another blob's is refused by hash.
func TestLargeGitStale(t *testing.T) {
	t.Parallel()
	e := newGitLargeEnv(t, "1M")
	e.write("a.raw", string(largeData(10, 2<<20)))
	e.write("b.raw", string(largeData(11, 2<<20)))
	gitIn(t, e.dir, "add", "-A")
	gitIn(t, e.dir, "commit", "-q", "-m", "v1")
	e.ok("snap")
	e.rm("a.raw")
	e.rm("b.raw")
	e.ok("end")
	obj := func(name string) string {
		oid := strings.TrimSpace(gitIn(t, e.dir, "rev-parse", "HEAD:"+name))
		return e.path(".git/objects/" + oid[:2] + "/" + oid[2:])
	}
	oa, ob := obj("a.raw"), obj("b.raw")
	if err := os.Remove(oa); err != nil {
		t.Fatal(err)
	}
	other, err := os.ReadFile(ob)
	if err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(ob, 0o644)
	// b's object file now holds a valid blob of other content, same size.
	e.write("c.raw", string(largeData(12, 2<<20)))
	cOID := strings.TrimSpace(gitIn(t, e.dir, "hash-object", "-w", "c.raw"))
	os.Remove(e.path("c.raw"))
	cData, err := os.ReadFile(e.path(".git/objects/" + cOID[:2] + "/" + cOID[2:]))
	if err != nil || bytes.Equal(cData, other) {
		t.Fatalf("fixture: %v", err)
	}
	treetest.PutPath(t, ob, string(cData))
	r := e.expect(exitIncomplete, "--json", "undo")
	var doc struct {
		NotRestorable []string          `json:"not_restorable"`
		Reasons       map[string]string `json:"reasons"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v: %v", r, err)
	}
	if !slices.Equal(doc.NotRestorable, []string{"a.raw", "b.raw"}) || !strings.Contains(doc.Reasons["a.raw"], "git blob") ||
		!strings.Contains(doc.Reasons["b.raw"], "other content") {
		t.Fatalf("stale git references: %+v\n%v", doc, r)
	}
	absent(t, e.path("a.raw"))
	absent(t, e.path("b.raw"))
}

// jsonIncomplete runs a restoring command with --json, wants exit 5 ("done,
// but incomplete") with "incomplete": true, and returns its strictly
// parsed document.
func (e *cliEnv) jsonIncomplete(args ...string) restoreDoc {
	e.t.Helper()
	r := e.expect(exitIncomplete, append([]string{"--json"}, args...)...)
	if !strings.Contains(r.stdout, `"incomplete": true`) {
		e.t.Fatalf("exit 5 without \"incomplete\": true: %v", r)
	}
	return parseRestoreDoc(e.t, r, true)
}
