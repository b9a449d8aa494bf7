package cli

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// dirState records every file and directory under root (path, type,
// mode, size and content hash): two equal states mean nothing was
// created, deleted or written there.
func dirState(t testing.TB, root string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && p == root {
				return filepath.SkipAll
			}
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		line := fmt.Sprintf("%s %v %d", rel, fi.Mode(), fi.Size())
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" %x", sha256.Sum256(data))
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// wantRefused checks that r exited 1 (not 2, not a signal) naming what.
func wantRefused(t *testing.T, r cliResult, what string) {
	t.Helper()
	if r.code != 1 {
		t.Errorf("%v\nwant exit 1", r)
	}
	if !strings.Contains(r.stderr, what) {
		t.Errorf("%v\nwant the error to name %q", r, what)
	}
}

// e2eHistory records two turns on a.txt (large enough for a pack file)
// and b.txt, in-process when it can (cliEnv.setup).
func e2eHistory(e *cliEnv) {
	s := e.setup()
	e.writeBytes("a.txt", noise(1, 3000))
	e.writeBytes("b.txt", []byte("b1\n"))
	s.ok("snap")
	e.writeBytes("a.txt", noise(2, 3000))
	s.ok("end")
	s.ok("snap")
	e.writeBytes("b.txt", []byte("b2\n"))
	s.ok("end")
}

// noise returns n bytes that do not compress, the same for a seed.
func noise(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	out := make([]byte, n)
	for i := range out {
		out[i] = byte(r.Uint32())
	}
	return out
}

// TestStoreDamagedManifest: a missing or cut-short Badger MANIFEST
// (which made Badger start over and delete every table) makes every
// command exit 1 naming the file, and leaves every file of the store as
// it was.
func TestStoreDamagedManifest(t *testing.T) {
	t.Parallel()
	for _, damage := range []string{"remove", "truncate", "garbage"} {
		t.Run(damage, func(t *testing.T) {
			e := newStoreEnv(t)
			e2eHistory(e)
			// The binary meets one damage; the others run in-process.
			e.inProcess = damage != "remove"
			m := filepath.Join(e.store, "db", "MANIFEST")
			switch damage {
			case "remove":
				if err := os.Remove(m); err != nil {
					t.Fatal(err)
				}
			case "truncate":
				if err := os.Truncate(m, 10); err != nil {
					t.Fatal(err)
				}
			case "garbage":
				if err := os.WriteFile(m, []byte("Bdgr\x00\x00\x00\x08\x00\x00\x00\x10\xde\xad\xbe\xefnot a change set"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			before := dirState(t, e.store)
			work := dirState(t, e.dir)
			for _, args := range [][]string{{"log"}, {"status"}, {"info"}, {"verify"}, {"snap"}, {"undo"}, {"gc"}, {"log"}} {
				wantRefused(t, e.run(args...), "MANIFEST")
			}
			if got := dirState(t, e.store); got != before {
				t.Errorf("the store changed:\nbefore:\n%s\nafter:\n%s", before, got)
			}
			if got := dirState(t, e.dir); got != work {
				t.Errorf("the work tree changed:\nbefore:\n%s\nafter:\n%s", work, got)
			}
		})
	}
}

// TestUndoFlippedPackByte: with one byte flipped in the pack file that
// holds the content an undo would replace (so the way back would be
// lost), undo exits 1 and the folder stays byte-identical.
func TestUndoFlippedPackByte(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	e2eHistory(e)
	e.ok("undo") // b.txt back to b1
	// Undo of turn 1 replaces a.txt's second version: flip a byte in the
	// middle of it, in the pack that holds it (stored raw: it does not
	// compress).
	packs, _ := filepath.Glob(filepath.Join(e.store, "db", "*.pack"))
	flipped := false
	for _, p := range packs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if i := bytes.Index(data, noise(2, 3000)); i >= 0 {
			data[i+1500] ^= 0x40
			if err := os.WriteFile(p, data, 0o600); err != nil {
				t.Fatal(err)
			}
			flipped = true
			break
		}
	}
	if !flipped {
		t.Fatalf("a.txt's second version is in none of the packs %v", packs)
	}
	work := dirState(t, e.dir)
	r := e.run("undo")
	wantRefused(t, r, "a.txt")
	if got := dirState(t, e.dir); got != work {
		t.Errorf("the folder changed:\nbefore:\n%s\nafter:\n%s", work, got)
	}
	if !strings.Contains(r.stderr, "stopped before changing anything") {
		t.Errorf("%v\nwant it to say nothing was changed", r)
	}
	// The history is intact: the same undo still waits, redo still works.
	e.ok("redo")
	if got := string(e.read("b.txt")); got != "b2\n" {
		t.Errorf("after redo b.txt is %q", got)
	}
}

// TestStoreForeignFolder: --store naming a folder that is not a
// turnback store (here one with a Badger-like db/000042.sst) is refused
// by every command, which leave it byte-identical.
func TestStoreForeignFolder(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	e.writeBytes("a.txt", []byte("a\n"))
	other := filepath.Join(e.base, "other")
	if err := os.MkdirAll(filepath.Join(other, "db"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "db", "000042.sst"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := dirState(t, other)
	e.store = other
	for _, args := range [][]string{{"status"}, {"log"}, {"info"}, {"verify"}, {"snap"}, {"end"}, {"undo"}, {"gc"}, {"diff"}} {
		wantRefused(t, e.run(args...), other)
	}
	if got := dirState(t, other); got != before {
		t.Errorf("the folder changed:\nbefore:\n%s\nafter:\n%s", before, got)
	}
	// A folder with a file of its own (no db at all) is refused too.
	if err := os.WriteFile(filepath.Join(e.base, "notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.store = e.base + string(filepath.Separator) + "notes-dir"
	if err := os.MkdirAll(e.store, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.store, "keep.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, e.run("snap"), e.store)
	if ents, _ := os.ReadDir(e.store); len(ents) != 1 {
		t.Errorf("the refused folder holds %d entries, want only keep.txt", len(ents))
	}
	// A folder that looks like an earlier turnback's store (its worktree
	// note) but whose database is not one (a table without a MANIFEST)
	// is refused before anything, the marker included, is written.
	legacy := filepath.Join(e.base, "legacy")
	if err := os.MkdirAll(filepath.Join(legacy, "db"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(legacy, "worktree"), []byte(e.dir+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(legacy, "db", "000042.sst"), []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	before = dirState(t, legacy)
	e.store = legacy
	for _, args := range [][]string{{"snap"}, {"status"}, {"log"}} {
		if r := e.run(args...); r.code != 1 {
			t.Errorf("%v\nwant exit 1", r)
		}
	}
	if got := dirState(t, legacy); got != before {
		t.Errorf("the refused legacy-looking folder changed:\nbefore:\n%s\nafter:\n%s", before, got)
	}
}

// TestStoreMarker: a new store gets the marker; a store of an earlier
// turnback (no marker) keeps working and is marked by the next command
// that writes, not by a reading one.
func TestStoreMarker(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	e2eHistory(e)
	marker := filepath.Join(e.store, "turnback-store.json")
	data, err := os.ReadFile(marker)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"format": "turnback store"`, `"version": 4`, `"work_tree": ` + fmt.Sprintf("%q", e.dir)} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("marker %s lacks %s", data, want)
		}
	}
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	if r := e.ok("log"); !strings.Contains(r.stdout, "   2  ") {
		t.Errorf("log of an unmarked (earlier) store:\n%v", r)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("log wrote the marker: %v", err)
	}
	e.ok("undo")
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("undo did not mark the earlier store: %v", err)
	}
	if got := string(e.read("b.txt")); got != "b1\n" {
		t.Errorf("after undo b.txt is %q", got)
	}
}

// TestReadingCommandsCreateNothing: in a folder without a store, reading
// commands give an empty answer (exit 0; show of an id exits 1) and
// create nothing, from the folder or a subfolder (-C proj/src).
func TestReadingCommandsCreateNothing(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	e.store = "" // the default location, under XDG_DATA_HOME
	e.writeBytes("src/main.go", []byte("package main\n"))
	xdg := dirState(t, e.xdg)
	cases := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"log"}, 0, "no turns"},
		{[]string{"status"}, 0, "everything is new"},
		{[]string{"info"}, 0, "snapshots:  0"},
		{[]string{"verify"}, 0, "ok: 0 snapshots"},
		{[]string{"diff"}, 0, ""},
		{[]string{"show", "0123456789ab"}, 1, ""},
	}
	for _, dir := range []string{e.dir, filepath.Join(e.dir, "src")} {
		for _, c := range cases {
			args := append([]string{"-C", dir}, c.args...)
			r := e.exec(e.base, nil, args...)
			if r.code != c.code || !strings.Contains(r.stdout, c.out) {
				t.Errorf("%v\nwant exit %d and %q", r, c.code, c.out)
			}
		}
	}
	if got := dirState(t, e.xdg); got != xdg {
		t.Errorf("reading commands created files:\n%s", got)
	}
}

// TestVerifyRepair: after the MANIFEST is lost (or cut short), verify
// --repair keeps the damaged database whole in damaged-<time>/, rebuilds
// one with every turn, and the history works again: log as before, undo
// and redo with the right bytes.
func TestVerifyRepair(t *testing.T) {
	t.Parallel()
	for _, damage := range []string{"remove", "truncate"} {
		t.Run(damage, func(t *testing.T) {
			e := newStoreEnv(t)
			e2eHistory(e)
			// The binary meets one damage; the other runs in-process.
			e.inProcess = damage != "remove"
			logBefore := e.ok("log").stdout
			db := filepath.Join(e.store, "db")
			m := filepath.Join(db, "MANIFEST")
			if damage == "remove" {
				if err := os.Remove(m); err != nil {
					t.Fatal(err)
				}
			} else if err := os.Truncate(m, 10); err != nil {
				t.Fatal(err)
			}
			dbBefore := dirState(t, db)
			wantRefused(t, e.run("log"), "MANIFEST")
			r := e.ok("verify", "--repair")
			if !strings.Contains(r.stdout, "repaired: ") || !strings.Contains(r.stdout, "ok: ") {
				t.Errorf("verify --repair:\n%v", r)
			}
			aside, _ := filepath.Glob(filepath.Join(e.store, "damaged-*", "db"))
			if len(aside) != 1 {
				t.Fatalf("damaged databases kept: %v", aside)
			}
			if got := dirState(t, aside[0]); got != dbBefore {
				t.Errorf("the damaged database was not kept as it was:\nbefore:\n%s\nkept:\n%s", dbBefore, got)
			}
			if got := e.ok("log").stdout; got != logBefore {
				t.Errorf("log after the repair:\n%s\nwant:\n%s", got, logBefore)
			}
			e.ok("undo", "2")
			if got := e.read("a.txt"); !bytes.Equal(got, noise(1, 3000)) {
				t.Error("after undo 2, a.txt is not its first version")
			}
			e.ok("redo", "2")
			if got := string(e.read("b.txt")); got != "b2\n" {
				t.Errorf("after redo 2, b.txt is %q", got)
			}
			if r := e.ok("verify", "--repair"); !strings.Contains(r.stdout, "nothing to repair") {
				t.Errorf("a second repair:\n%v", r)
			}
		})
	}
}
