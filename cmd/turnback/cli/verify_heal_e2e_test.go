package cli

// Stored content damaged on disk while the folder still holds it.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRepairStoresDamagedContentFromFolder flips one byte in the middle
// of the store's only pack file, inside the block that holds the three
// small files. verify names the damage; a capture does not mend it (the
// store believes it has the content). verify --repair stores again, from
// the folder, each content a file there still holds, says which, and
// names what it could not; once the last file holds its old content
// again, a second repair mends the rest, and the turn undoes byte for
// byte. Before, verify --repair said "nothing to repair" and the
// content stayed damaged for good.
func TestRepairStoresDamagedContentFromFolder(t *testing.T) {
	t.Parallel()
	e := newCLI(t, "work")
	files := damagePack(t, e)
	r := e.expect(1, "verify")
	namesDamage(t, "verify", r.stderr, "f1.txt", "f2.txt", "f3.txt")
	e.ok("snap") // the folder's f1.txt and f3.txt are unchanged: not read again
	e.expect(1, "verify")

	// f2.txt holds what the turn wrote: its old content cannot come back.
	r = e.expect(1, "verify", "--repair")
	for _, n := range []string{"f1.txt", "f3.txt"} {
		if want := ", read from " + n + ", which still holds it\n"; !strings.Contains(r.stdout, want) {
			t.Errorf("verify --repair does not say it stored %s again:\n%s", n, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "f2.txt") || !strings.Contains(r.stderr, ": f2.txt: cas: corrupt data") ||
		strings.Contains(r.stderr, "f1.txt") || strings.Contains(r.stderr, "f3.txt") {
		t.Errorf("after the first repair only f2.txt should be damaged:\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}

	e.write("f2.txt", files["f2.txt"])
	r = e.ok("--json", "verify", "--repair")
	var doc struct {
		Repaired bool `json:"repaired"`
		Healed   []struct {
			Path, Content string
		} `json:"healed"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || !doc.Repaired || len(doc.Healed) != 1 ||
		doc.Healed[0].Path != "f2.txt" || len(doc.Healed[0].Content) != 64 {
		t.Fatalf("verify --repair --json: %v\n%s", err, r.stdout)
	}
	e.ok("verify")
	e.write("f2.txt", "changed by the turn\n")
	e.ok("undo")
	for n, want := range files {
		if got := string(e.read(n)); got != want {
			t.Errorf("after undo %s = %q; want %q", n, got, want)
		}
	}
}

// TestVerifyDamageThroughDaemon: with a watch daemon serving the store,
// verify and verify --repair report the damage as without one. Before,
// both panicked: the daemon sent the error without the result.
// verify --repair then says the daemon kept it from storing content
// again; once the daemon is stopped, it does.
func TestVerifyDamageThroughDaemon(t *testing.T) {
	t.Parallel()
	e := newCLI(t, "work")
	e.shortXDG()
	damagePack(t, e)
	e.startWatchDaemon()
	r := e.expect(1, "verify")
	namesDamage(t, "verify through the daemon", r.stderr, "f1.txt", "f2.txt", "f3.txt")
	r = e.expect(1, "--json", "verify")
	var doc struct {
		Snapshots int `json:"snapshots"`
		Problems  []struct {
			Path string `json:"path"`
		} `json:"problems"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || doc.Snapshots != 2 || len(doc.Problems) != 5 {
		t.Errorf("--json verify through the daemon: %v\n%s", err, r.stdout)
	}
	r = e.expect(1, "verify", "--repair")
	namesDamage(t, "verify --repair through the daemon", r.stderr, "f1.txt", "f2.txt", "f3.txt")
	if !strings.Contains(r.stderr, "turnback: a watch daemon serves this store, so damaged content was not stored again from the folder: stop it (turnback watch --stop) and run turnback verify --repair again\n") {
		t.Errorf("verify --repair does not say the daemon kept it from storing content again:\n%s", r.stderr)
	}
	if want := "nothing repaired: the database opens, but a watch daemon serves this store (below)\n"; r.stdout != want {
		t.Errorf("verify --repair through the daemon, stdout:\n%s\nwant:\n%s", r.stdout, want)
	}
	e.ok("watch", "--stop")
	r = e.expect(1, "verify", "--repair")
	if !strings.Contains(r.stdout, ", read from f1.txt, which still holds it\n") || !strings.Contains(r.stdout, ", read from f3.txt, which still holds it\n") {
		t.Errorf("verify --repair once the daemon stopped:\n%s", r.stdout)
	}
}

// TestVerifyDamageAfterDaemonRead: a daemon that has read a block keeps
// it decoded in memory. Damage to the pack after that read is still found
// by verify through the daemon: verify reads from the disk.
func TestVerifyDamageAfterDaemonRead(t *testing.T) {
	t.Parallel()
	e := newCLI(t, "work")
	e.shortXDG()
	files, pack, size := blockTurn(t, e)
	e.startWatchDaemon()
	// The undo, served by the daemon, reads the block of the files' first
	// contents to put f2.txt back.
	e.ok("undo")
	if got := string(e.read("f2.txt")); got != files["f2.txt"] {
		t.Fatalf("f2.txt after the undo: %q, want %q", got, files["f2.txt"])
	}
	flipByte(t, pack, size/2)
	r := e.expect(1, "verify")
	namesDamage(t, "verify through the daemon after it read the block", r.stderr, "f1.txt", "f2.txt", "f3.txt")
}

// damagePack records a turn over three small files that share a block
// (f2.txt changed), then flips one byte in the middle of the store's
// only pack file. It returns the files' contents before the turn.
func damagePack(t *testing.T, e *cliEnv) map[string]string {
	t.Helper()
	files, pack, size := blockTurn(t, e)
	flipByte(t, pack, size/2)
	return files
}

// blockTurn records a turn over three small files that share a block
// (f2.txt changed). It returns the files' contents before the turn, the
// store's only pack file and its size.
func blockTurn(t *testing.T, e *cliEnv) (map[string]string, string, int64) {
	t.Helper()
	files := map[string]string{}
	for _, n := range []string{"f1.txt", "f2.txt", "f3.txt"} {
		files[n] = "the content of " + n + ", long enough to stand out in its block\n"
		e.write(n, files[n])
	}
	e.ok("snap")
	e.write("f2.txt", "changed by the turn\n")
	e.ok("end")
	packs, _ := filepath.Glob(filepath.Join(e.xdg, "turnback", "*", "db", "*.pack"))
	if len(packs) != 1 {
		t.Fatalf("want one pack file, found %v", packs)
	}
	fi, err := os.Stat(packs[0])
	if err != nil {
		t.Fatal(err)
	}
	return files, packs[0], fi.Size()
}

// flipByte flips the byte at off in the file at path, in place: a process
// that has the file open sees the change.
func flipByte(t *testing.T, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0xff
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

// namesDamage checks that stderr of what names each file as damaged.
func namesDamage(t *testing.T, what, stderr string, names ...string) {
	t.Helper()
	for _, n := range names {
		if !strings.Contains(stderr, ": "+n+": cas: corrupt data") {
			t.Errorf("%s does not name %s as damaged:\n%s", what, n, stderr)
		}
	}
	if strings.Contains(stderr, "panic") {
		t.Errorf("%s panicked:\n%s", what, stderr)
	}
}
