package cli

// End-to-end tests of "turnback info" and of "gc --stores" (the stores
// of folders that no longer exist).

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest/treetest"
)

// gcInfoDoc is the JSON of "info".
type gcInfoDoc struct {
	WorkTree      string `json:"work_tree"`
	Store         string `json:"store"`
	DiskBytes     int64  `json:"disk_bytes"`
	Sessions      int    `json:"sessions"`
	Turns         int    `json:"turns"`
	Redoable      int    `json:"redoable_turns"`
	Snapshots     int    `json:"snapshots"`
	UniqueBytes   int64  `json:"unique_bytes"`
	LogicalBytes  int64  `json:"logical_bytes"`
	SizeLimit     int64  `json:"size_limit"`
	LargeDirFiles int    `json:"large_dir_files"`
	KeepTurns     int    `json:"keep_turns"`
	KeepAgeDays   int    `json:"keep_age_days"`
}

func (e *cliEnv) info(args ...string) gcInfoDoc {
	e.t.Helper()
	r := e.ok(append(append([]string{"--json"}, args...), "info")...)
	var doc gcInfoDoc
	cliOneJSON(e.t, r.stdout, &doc)
	return doc
}

// TestInfoReportsStore: info, human and --json, on a known tree: two
// snapshots sharing a 1 MiB file count it once as unique bytes and twice
// as logical bytes; sessions, turns, redoable turns, snapshots, the store
// and its size, and the limits in force (defaults, then from the
// environment).
func TestInfoReportsStore(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	e.writeBytes("big.bin", gcRandom(7, 1<<20))
	e.writeBytes("small.txt", []byte("a"))
	ip := e.setup() // the turns are the setting; info is the check
	ip.ok("snap", "-m", "edit small")
	e.writeBytes("small.txt", []byte("bb"))
	ip.ok("end")

	in := e.info()
	du := treetest.DiskUsage(t, e.store)
	t.Logf("info: %+v; du %d", in, du)
	want := gcInfoDoc{WorkTree: e.dir, Store: e.store, DiskBytes: in.DiskBytes, Sessions: 1, Turns: 1, Redoable: 0, Snapshots: 2,
		UniqueBytes: 1<<20 + 1 + 2, LogicalBytes: 2*(1<<20) + 1 + 2,
		SizeLimit: 10 << 20, LargeDirFiles: 200, KeepTurns: 100, KeepAgeDays: 30}
	if in != want {
		t.Errorf("info --json:\n got %+v\nwant %+v", in, want)
	}
	// The store holds 1 MiB of incompressible content; info's size is the
	// store's disk use (measured while open, so within a margin of du's).
	if in.DiskBytes < 1<<20 || in.DiskBytes > du+32<<20 || in.DiskBytes < du-32<<20 {
		t.Errorf("info says the store takes %d bytes; du says %d", in.DiskBytes, du)
	}

	r := e.ok("info")
	for _, line := range []string{
		"work tree:  " + e.dir + "\n",
		"store:      " + e.store + "\n",
		"disk:       ",
		"sessions:   1 (1 turn, 0 redoable)\n",
		"snapshots:  2\n",
		"content:    1.0 MiB unique of 2.0 MiB logical across snapshots (deduplication saves 50.0%",
		"limits:     files over 10.0 MiB and new directories of 200+ files are not captured\n",
		"retention:  100 turns and 30 days per session\n",
	} {
		if !strings.Contains(r.stdout, line) {
			t.Errorf("info does not print %q:\n%s", line, r.stdout)
		}
	}

	// A second session on the same state: one more session and turn, the
	// same snapshot (content-addressed), the same bytes.
	ip.ok("--session", "other", "snap")
	in = e.info()
	if in.Sessions != 2 || in.Turns != 2 || in.Snapshots != 2 || in.UniqueBytes != want.UniqueBytes || in.LogicalBytes != want.LogicalBytes {
		t.Errorf("after a snap in a second session, info: %+v; want 2 sessions, 2 turns, 2 snapshots, the same bytes", in)
	}
	// An undo moves the turn to the redo stack (of default, named: the
	// newest turn is the other session's).
	ip.ok("--session", "default", "undo")
	in = e.info()
	if in.Turns != 1 || in.Redoable != 1 {
		t.Errorf("after undo, info: %+v; want 1 turn and 1 redoable", in)
	}
	if r := e.ok("info"); !strings.Contains(r.stdout, "sessions:   2 (1 turn, 1 redoable)\n") {
		t.Errorf("after undo, info prints:\n%s", r.stdout)
	}

	// Limits from the environment.
	e.extra = append(e.extra, "TURNBACK_SIZE_LIMIT=2M", "TURNBACK_LARGE_DIR_FILES=50", "TURNBACK_KEEP_TURNS=7", "TURNBACK_KEEP_AGE=14d")
	in = e.info()
	if in.SizeLimit != 2<<20 || in.LargeDirFiles != 50 || in.KeepTurns != 7 || in.KeepAgeDays != 14 {
		t.Errorf("with limits in the environment, info: %+v; want 2 MiB, 50 files, 7 turns, 14 days", in)
	}
	r = e.ok("info")
	for _, line := range []string{
		"limits:     files over 2.0 MiB and new directories of 50+ files are not captured\n",
		"retention:  7 turns and 14 days per session\n",
	} {
		if !strings.Contains(r.stdout, line) {
			t.Errorf("info does not print %q:\n%s", line, r.stdout)
		}
	}
}

// gcStoreOf returns the store directory under root whose worktree note
// names workTree.
func gcStoreOf(t *testing.T, root, workTree string) string {
	t.Helper()
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ents {
		data, err := os.ReadFile(filepath.Join(root, d.Name(), "worktree"))
		if err == nil && strings.TrimSpace(string(data)) == workTree {
			return filepath.Join(root, d.Name())
		}
	}
	t.Fatalf("no store under %s for %s", root, workTree)
	return ""
}

func gcExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestGCStoresListsAndDeletesOrphans: two folders with stores in the
// default location (XDG_DATA_HOME); one folder is deleted. "gc --stores"
// lists exactly its store and deletes nothing; "--yes" deletes it and
// keeps the other (and a directory that is no store). A store in use is
// never deleted.
func TestGCStoresListsAndDeletesOrphans(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	e.store = ""
	a, b := filepath.Join(e.base, "project-a"), filepath.Join(e.base, "project-b")
	for _, d := range []string{a, b} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "main.go"), []byte("package main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if r := e.exec(d, nil, "snap", "-m", "first"); r.code != 0 {
			t.Fatalf("%v", r)
		}
	}
	root := filepath.Join(e.xdg, "turnback")
	storeA, storeB := gcStoreOf(t, root, a), gcStoreOf(t, root, b)
	junk := filepath.Join(root, "not-a-store")
	if err := os.MkdirAll(junk, 0o700); err != nil {
		t.Fatal(err)
	}
	if r := e.exec(e.base, nil, "gc", "--stores"); r.code != 0 || r.stdout != "no orphaned stores\n" {
		t.Fatalf("with both folders present: %v; want \"no orphaned stores\"", r)
	}
	if err := os.RemoveAll(a); err != nil {
		t.Fatal(err)
	}

	r := e.exec(e.base, nil, "gc", "--stores")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || len(lines) != 2 || !strings.Contains(lines[0], "  "+storeA+"  (folder "+a+" is gone)") ||
		!strings.HasPrefix(lines[1], "1 stores, ") || !strings.HasSuffix(lines[1], "run with --yes to delete them") ||
		strings.Contains(r.stdout, storeB) {
		t.Errorf("gc --stores: %v\nwant exactly %s listed", r, storeA)
	}
	r = e.exec(e.base, nil, "--json", "gc", "--stores")
	var doc struct {
		Stores []struct {
			Store    string `json:"store"`
			WorkTree string `json:"work_tree"`
			Bytes    int64  `json:"bytes"`
		} `json:"stores"`
		Deleted bool `json:"deleted"`
	}
	cliOneJSON(t, r.stdout, &doc)
	if r.code != 0 || len(doc.Stores) != 1 || doc.Stores[0].Store != storeA || doc.Stores[0].WorkTree != a || doc.Stores[0].Bytes <= 0 || doc.Deleted {
		t.Errorf("--json gc --stores: %+v; want only %s, not deleted", doc, storeA)
	}
	for _, p := range []string{storeA, storeB, junk} {
		if !gcExists(p) {
			t.Fatalf("gc --stores without --yes deleted %s", p)
		}
	}

	// A store some process holds is left alone.
	held, err := cas.OpenBadger(t.Context(), filepath.Join(storeA, "db"), cas.BadgerOptions{Holder: "test"})
	if err != nil {
		t.Fatal(err)
	}
	r = e.exec(e.base, nil, "gc", "--stores", "--yes")
	held.Close()
	if r.code != 0 || !gcExists(storeA) {
		t.Errorf("gc --stores --yes while the orphan is held: %v; exists afterwards: %v (want it kept)", r, gcExists(storeA))
	}

	r = e.exec(e.base, nil, "gc", "--stores", "--yes")
	if r.code != 0 || !strings.Contains(r.stdout, storeA) || !strings.Contains(r.stdout, "deleted 1 stores") {
		t.Errorf("gc --stores --yes: %v", r)
	}
	if gcExists(storeA) {
		t.Errorf("gc --stores --yes kept %s", storeA)
	}
	if !gcExists(storeB) || !gcExists(junk) {
		t.Errorf("gc --stores --yes deleted %s (%v) or %s (%v); want both kept", storeB, gcExists(storeB), junk, gcExists(junk))
	}
	if r := e.exec(b, nil, "--json", "log"); r.code != 0 || !strings.Contains(r.stdout, `"message": "first"`) {
		t.Errorf("the other folder's store no longer works: %v", r)
	}
	if r := e.exec(e.base, nil, "gc", "--stores"); r.stdout != "no orphaned stores\n" {
		t.Errorf("after deleting the orphan: %v", r)
	}
}
