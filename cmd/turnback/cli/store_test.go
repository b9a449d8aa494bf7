//go:build unix

package cli

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
)

// A process that finds the store held past its wait exits 4 and names the
// holder; TURNBACK_LOCK_WAIT shortens the wait; once the holder lets go,
// the same command succeeds, also while it is waiting.
func TestBusyStoreExitsFour(t *testing.T) {
	t.Parallel()
	e := newDirEnv(t, "wt")
	base, wt := e.base, e.dir
	store := filepath.Join(base, "store")
	e.writeBytes("a.txt", []byte("a\n"))
	e.ok("--store", store, "snap")

	repo, err := turnback.Open(t.Context(), wt, turnback.Options{Store: store, Holder: "test holder"})
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()

	start := time.Now()
	r := e.with("TURNBACK_LOCK_WAIT=300ms").run("--store", store, "snap")
	waited := time.Since(start)
	if r.code != 4 {
		t.Fatalf("snap while the store is held: %v; want exit 4", r)
	}
	if r.stdout != "" {
		t.Errorf("stdout: %q; want nothing", r.stdout)
	}
	if !strings.Contains(r.stderr, "waiting for the store, held by test holder") {
		t.Errorf("stderr does not say it waits for the holder:\n%s", r.stderr)
	}
	last := strings.TrimSpace(r.stderr[strings.LastIndex(strings.TrimSpace(r.stderr), "\n")+1:])
	if !strings.HasPrefix(last, "turnback: ") || !strings.Contains(last, "busy") || !strings.Contains(last, "test holder (pid ") {
		t.Errorf("last stderr line %q should say the store is busy and name the holder", last)
	}
	if waited < 300*time.Millisecond {
		t.Errorf("gave up after %v, before the 300ms wait", waited)
	}

	// --json: one document with the error; TURNBACK_LOCK_WAIT=0: no wait.
	for _, wait := range []string{"0", "10ms"} {
		r = e.with("TURNBACK_LOCK_WAIT="+wait).run("--store", store, "--json", "status")
		if r.code != 4 {
			t.Fatalf("TURNBACK_LOCK_WAIT=%s: %v; want exit 4", wait, r)
		}
		var doc struct {
			Error    string `json:"error"`
			ExitCode int    `json:"exit_code"`
		}
		cliOneJSON(t, r.stdout, &doc)
		if doc.ExitCode != 4 || !strings.Contains(doc.Error, "test holder") {
			t.Errorf("TURNBACK_LOCK_WAIT=%s: JSON %+v; want exit_code 4 and an error naming the holder", wait, doc)
		}
	}

	// A waiting process proceeds when the holder lets go.
	p := e.with("TURNBACK_LOCK_WAIT=60s").start("--store", store, "snap")
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(p.stderr.String(), "waiting for the store"); {
		if time.Now().After(deadline) {
			t.Fatalf("the second snap does not say it waits: %q", p.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := repo.Close(); err != nil {
		t.Fatal(err)
	}
	r = p.wait()
	if r.code != 0 || !strings.Contains(r.stderr, "held by test holder") {
		t.Errorf("snap waiting for the holder: %v; want exit 0 after a wait", r)
	}
}

// A flipped byte in a stored blob (a small file's, or one chunk of a large
// file) makes verify fail (exit 1) naming the snapshot and the path, on
// stderr and in the --json document.
func TestVerifyFindsFlippedByte(t *testing.T) {
	t.Parallel()
	e := newDirEnv(t, "wt")
	base := e.base
	store := filepath.Join(base, "store")
	e = e.with("TURNBACK_STORE=" + store)
	secret := make([]byte, 4096)
	if _, err := rand.Read(secret); err != nil {
		t.Fatal(err)
	}
	e.writeBytes("data/random.bin", secret)
	e.writeBytes("a.txt", []byte("alpha\n"))
	e.writeBytes("copy/same.bin", secret) // same content, second path
	// A file large enough to be split into chunks; a 4 KiB piece from its
	// middle is damaged below as well.
	big := make([]byte, 3<<20)
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	e.writeBytes("big.bin", big)
	snap := e.snapJSON("snap")
	if r := e.run("verify"); r.code != 0 {
		t.Fatalf("verify before the damage: %v", r)
	}

	// A piece of the big file's middle that lies within one chunk, hence
	// contiguous in a database file.
	var dbData []byte
	dbDir := filepath.Join(store, "db")
	ents, err := os.ReadDir(dbDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() {
			continue // the holder note's
		}
		data, err := os.ReadFile(filepath.Join(dbDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		dbData = append(dbData, data...)
	}
	var piece []byte
	for off := 3 << 19; off < 5<<19 && piece == nil; off += 64 << 10 {
		if bytes.Contains(dbData, big[off:off+4096]) {
			piece = big[off : off+4096]
		}
	}
	if piece == nil {
		t.Fatalf("no piece of big.bin's middle is stored contiguously under %s", dbDir)
	}

	// Find the contents in the database files and flip one byte of each.
	found := map[*byte]int{}
	err = filepath.WalkDir(dbDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		flipped := false
		for _, want := range [][]byte{secret, piece} {
			for off := 0; ; {
				i := bytes.Index(data[off:], want)
				if i < 0 {
					break
				}
				data[off+i+2048] ^= 0x01
				off += i + len(want)
				found[&want[0]]++
				flipped = true
			}
		}
		if flipped {
			return os.WriteFile(p, data, 0o644)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found[&secret[0]] == 0 || found[&piece[0]] == 0 {
		t.Fatalf("the damaged contents are not in the files under %s (found %v)", dbDir, found)
	}

	r := e.run("verify")
	if r.code != 1 {
		t.Fatalf("verify of a damaged store: %v; want exit 1", r)
	}
	if r.stdout != "" {
		t.Errorf("verify printed on stdout: %q", r.stdout)
	}
	for _, p := range []string{"data/random.bin", "copy/same.bin", "big.bin"} {
		want := fmt.Sprintf("turnback: snapshot %s: %s: ", snap.Snapshot[:12], p)
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr does not name %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "a.txt") {
		t.Errorf("stderr names the undamaged a.txt:\n%s", r.stderr)
	}

	r = e.run("--json", "verify")
	if r.code != 1 {
		t.Fatalf("--json verify of a damaged store: %v; want exit 1", r)
	}
	var doc struct {
		ExitCode int    `json:"exit_code"`
		Error    string `json:"error"`
		Problems []struct {
			Snapshot string `json:"snapshot"`
			Path     string `json:"path"`
			Error    string `json:"error"`
		} `json:"problems"`
	}
	cliOneJSON(t, r.stdout, &doc)
	if doc.ExitCode != 1 || len(doc.Problems) != 3 {
		t.Fatalf("--json verify: %+v; want exit_code 1 and three problems", doc)
	}
	paths := map[string]bool{}
	for _, p := range doc.Problems {
		paths[p.Path] = true
		if p.Snapshot != snap.Snapshot || !strings.Contains(p.Error, "corrupt") {
			t.Errorf("problem %+v: want snapshot %s and a corruption error", p, snap.Snapshot)
		}
	}
	if !paths["data/random.bin"] || !paths["copy/same.bin"] || !paths["big.bin"] {
		t.Errorf("problems name %v; want data/random.bin, copy/same.bin and big.bin", paths)
	}
	// Reading the damaged file for a diff fails too, naming it.
	e.writeBytes("data/random.bin", []byte("changed\n"))
	r = e.run("diff")
	if r.code != 1 || !strings.Contains(r.stderr, "data/random.bin") {
		t.Errorf("diff against a damaged blob: %v; want exit 1 naming data/random.bin", r)
	}
}

// storeListing lists the store's files with their sizes, for a message.
func storeListing(t *testing.T, dir string) string {
	var b strings.Builder
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			fi, _ := d.Info()
			st := fi.Sys().(*syscall.Stat_t)
			rel, _ := filepath.Rel(dir, p)
			fmt.Fprintf(&b, "  %-20s size %10d allocated %10d\n", rel, fi.Size(), st.Blocks*512)
		}
		return nil
	})
	return b.String()
}

// A 2 GB sparse file is captured with no size limit in bounded memory, and
// a 1 MB change in its middle adds little to the store.
func TestSparse2GBFile(t *testing.T) {
	testtier.Slow(t)
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("peak RSS from rusage is measured in KiB on Linux only")
	}
	if testing.Short() {
		t.Skip("reads 4 GB")
	}
	const (
		size        = 2 << 30
		maxRSS      = 200 << 10 // KiB
		maxAddition = 10 << 20
	)
	e := newDirEnv(t, "wt")
	base, wt := e.base, e.dir
	store := filepath.Join(base, "store")
	e = e.with("TURNBACK_STORE="+store, "TURNBACK_SIZE_LIMIT=0")
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(wt, "sparse.img")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}

	// The process reports its own high-water mark (rusage of a vforked
	// child can count the test process's memory).
	e = e.with("TURNBACK_TEST_PEAK_RSS=1")
	start := time.Now()
	r := e.ok("--json", "snap")
	t.Logf("first snap: %v, peak RSS %d MiB", time.Since(start).Round(time.Millisecond), r.maxRSSKiB>>10)
	var first snapStatsDoc
	cliOneJSON(t, r.stdout, &first)
	if first.Bytes != size || len(first.Stats.Uncaptured) != 0 {
		t.Fatalf("first snap: %d bytes, uncaptured %v; want %d captured", first.Bytes, first.Stats.Uncaptured, size)
	}
	if r.maxRSSKiB > maxRSS {
		t.Errorf("first snap: peak RSS %d KiB, want under %d KiB", r.maxRSSKiB, maxRSS)
	}
	before := treetest.DiskUsage(t, store)
	listBefore := storeListing(t, store)

	patch := make([]byte, 1<<20)
	if _, err := rand.Read(patch); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(patch, size/2-1<<19); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	start = time.Now()
	r = e.ok("--json", "snap")
	t.Logf("second snap: %v, peak RSS %d MiB", time.Since(start).Round(time.Millisecond), r.maxRSSKiB>>10)
	var second snapStatsDoc
	cliOneJSON(t, r.stdout, &second)
	if second.Snapshot == first.Snapshot || second.Bytes != size {
		t.Errorf("second snap: id %s, %d bytes; want a new id and %d bytes", second.Snapshot, second.Bytes, size)
	}
	if r.maxRSSKiB > maxRSS {
		t.Errorf("second snap: peak RSS %d KiB, want under %d KiB", r.maxRSSKiB, maxRSS)
	}
	after := treetest.DiskUsage(t, store)
	t.Logf("store: %d KiB allocated after the first snap, %d KiB after the second (+%d KiB); new_bytes %d",
		before>>10, after>>10, (after-before)>>10, second.Stats.NewBytes)
	if after-before >= maxAddition {
		t.Errorf("a 1 MiB change added %d bytes to the store, want under %d\nbefore:\n%safter:\n%s",
			after-before, maxAddition, listBefore, storeListing(t, store))
	}
	d := e.ok("--json", "diff", first.Snapshot, second.Snapshot)
	var doc struct {
		Files []map[string]any `json:"files"`
	}
	cliOneJSON(t, d.stdout, &doc)
	if len(doc.Files) != 1 || doc.Files[0]["path"] != "sparse.img" || doc.Files[0]["binary"] != true {
		t.Errorf("diff: %s", d.stdout)
	}
}

// show with an id prefix two snapshots share, shorter than 4 hex digits,
// exits 2 naming the rule (ambiguity at 4 digits and more is
// TestResolveRules of the root package); a unique prefix of 4 digits or
// more works, in either case.
func TestShowAmbiguousID(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	byFirst := map[byte][]string{}
	var ids []string
	// 17 different snapshots: two of them share a first hex digit. They
	// are the setting: in-process (cliEnv.setup).
	for i := 0; i < 17; i++ {
		e.writeBytes("f.txt", fmt.Appendf(nil, "version %d\n", i))
		d := e.setup().snapJSON("snap")
		byFirst[d.Snapshot[0]] = append(byFirst[d.Snapshot[0]], d.Snapshot)
		ids = append(ids, d.Snapshot)
	}
	var prefix string
	var twins []string
	for _, id := range ids {
		if s := byFirst[id[0]]; len(s) > 1 {
			twins = s
			for n := 1; s[0][:n] == s[1][:n]; n++ {
				prefix = s[0][:n]
			}
			break
		}
	}
	short := prefix[:min(len(prefix), 3)]
	r := e.run("show", short)
	if r.code != 2 || !strings.Contains(r.stderr, "at least 4 hex digits") || r.stdout != "" {
		t.Errorf("show %s (shared by %v): %v; want exit 2 naming the rule", short, twins, r)
	}
	r = e.run("--json", "show", short)
	var doc map[string]any
	cliOneJSON(t, r.stdout, &doc)
	if r.code != 2 || doc["exit_code"] != json.Number("2") && doc["exit_code"] != float64(2) {
		t.Errorf("--json show %s: %v", short, r)
	}
	// One more digit than the shared prefix, and at least 4, is unique.
	for _, id := range twins[:2] {
		unique := id[:max(len(prefix)+1, 4)]
		r = e.ok("show", unique)
		if !strings.HasPrefix(r.stdout, "snapshot "+id+"\n") {
			t.Errorf("show %s: %s", unique, r.stdout)
		}
		r = e.ok("show", strings.ToUpper(id))
		if !strings.HasPrefix(r.stdout, "snapshot "+id+"\n") {
			t.Errorf("show %s: %s", strings.ToUpper(id), r.stdout)
		}
	}
}
