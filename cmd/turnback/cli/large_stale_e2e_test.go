package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

// lfsObject writes data as the Git LFS object of the repository at dir
// (.git/lfs/objects/<aa>/<bb>/<sha256>) and returns its path.
func lfsObject(t *testing.T, dir string, data []byte) string {
	t.Helper()
	sum := sha256.Sum256(data)
	h := hex.EncodeToString(sum[:])
	obj := filepath.Join(dir, ".git", "lfs", "objects", h[:2], h[2:4], h)
	if err := os.MkdirAll(filepath.Dir(obj), 0o755); err != nil {
		t.Fatal(err)
	}
	treetest.PutPath(t, obj, string(data))
	return obj
}

// TestLargeStaleFirstReference: content over the size limit held by two
// references, an LFS object first and a git blob; the LFS object is then
// rewritten with other bytes of the same size. undo must restore the file
// from the git blob, which still holds it: the restore opens the
// reference its check read the content back from, not the first that
// opens (which failed the whole undo with "holds other content", exit 1).
//
// Both references get recorded so: a first capture while .gitattributes
// tracks *.bin with no LFS object records the LFS oid but no reference;
// a second, with *.bin untracked and committed and the LFS object in
// place, finds both (LFS first).
func TestLargeStaleFirstReference(t *testing.T) {
	t.Parallel()
	e := newGitLargeEnv(t, "1K")
	data := largeData(21, 64<<10)
	e.write(".gitattributes", "*.bin filter=lfs diff=lfs merge=lfs -text\n")
	e.write("big.bin", string(data))
	e.ok("snap")
	e.rm(".gitattributes")
	gitIn(t, e.dir, "add", "big.bin")
	gitIn(t, e.dir, "commit", "-q", "-m", "v1")
	obj := lfsObject(t, e.dir, data)
	e.ok("snap")
	e.rm("big.bin")
	e.ok("end")
	treetest.PutPath(t, obj, string(largeData(22, 64<<10))) // stale: same size, other bytes
	doc := e.jsonOK("undo")
	if !slices.Equal(doc.Created, []string{"big.bin"}) {
		t.Fatalf("undo: %+v", doc)
	}
	sameBytes(t, e.path("big.bin"), data)
	// verify agrees: the git blob still holds the content.
	if r := e.ok("verify"); !strings.Contains(r.stdout, "read back by reference") {
		t.Fatalf("verify: %v", r)
	}
}

// TestLargeVerifyStaleReference: verify reads content over the size
// limit back from its reference. While the only reference (an LFS
// object, as .gitattributes tracks *.bin; big.bin is not committed, so
// no git blob) holds the content,
// verify says ok; rewritten with other bytes of the same size, verify
// exits 1 naming the snapshot and path, as text and in --json problems;
// put back, ok again.
func TestLargeVerifyStaleReference(t *testing.T) {
	t.Parallel()
	e := newGitLargeEnv(t, "1K")
	data := largeData(31, 64<<10)
	e.write(".gitattributes", "*.bin filter=lfs diff=lfs merge=lfs -text\n")
	e.write("big.bin", string(data))
	obj := lfsObject(t, e.dir, data)
	snap := e.snapID("snap")
	r := e.ok("verify")
	if !strings.Contains(r.stdout, "(1 read back by reference)") {
		t.Fatalf("verify: %v", r)
	}
	treetest.PutPath(t, obj, string(largeData(32, 64<<10)))
	r = e.expect(1, "verify")
	want := "turnback: snapshot " + snap[:12] + ": big.bin: over the size limit, held by reference: "
	if !strings.Contains(r.stderr, want) {
		t.Fatalf("verify stderr lacks %q: %v", want, r)
	}
	r = e.expect(1, "--json", "verify")
	var doc struct {
		References int `json:"references"`
		Problems   []struct {
			Snapshot string `json:"snapshot"`
			Path     string `json:"path"`
			Err      string `json:"error"`
		} `json:"problems"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("verify --json: %v: %v", err, r)
	}
	if len(doc.Problems) != 1 || doc.Problems[0].Snapshot != snap || doc.Problems[0].Path != "big.bin" ||
		!strings.Contains(doc.Problems[0].Err, "held by reference") || doc.References != 1 {
		t.Fatalf("verify --json: %+v\n%v", doc, r)
	}
	treetest.PutPath(t, obj, string(data))
	e.ok("verify")
}
