package cli

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/manifest/treetest"
)

// fiveTurnsInTheLog makes five turns without a daemon (their records in
// db/turnback-overlay.log: the first snap creates the database, every
// later command appends a frame) and returns the log's path and where
// each of its nine frames starts.
func fiveTurnsInTheLog(t *testing.T, e *cliEnv) (string, []int) {
	t.Helper()
	ip := e.setup() // the turns are the setting, not the check
	for i := 1; i <= 5; i++ {
		ip.ok("snap", "-m", fmt.Sprintf("turn-%d", i))
		e.write(fmt.Sprintf("f%d.txt", i), fmt.Sprintf("content %d\n", i))
		ip.ok("end")
	}
	path := filepath.Join(e.store, "db", "turnback-overlay.log")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var starts []int
	for off := 24; off+12 <= len(data); off += 12 + int(binary.LittleEndian.Uint32(data[off:])) {
		starts = append(starts, off)
	}
	if len(starts) != 9 {
		t.Fatalf("the log holds %d frames, want 9 (end, then snap and end of turns 2 to 5)", len(starts))
	}
	return path, starts
}

func flipLogByte(t *testing.T, path string, at int) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[at] ^= 0x10
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return data
}

// turnsListed counts the turns log lists (their messages).
func turnsListed(out string) int {
	n := 0
	for i := 1; i <= 5; i++ {
		if strings.Contains(out, fmt.Sprintf("turn-%d", i)) {
			n++
		}
	}
	return n
}

// TestDamagedLogCostsOneFrame: one flipped byte in the store's write log
// (in a middle frame, in the last one) costs that frame only. Reading
// commands show the rest with a warning naming the file, the byte
// offset and the fix; writing commands refuse (exit 1, same message) and
// leave the log as it is; verify exits 1; verify --repair keeps every
// other frame, moves the damaged log aside byte for byte, and then
// every command works and log lists the turns. Before, every command
// exited 1 on a middle frame (verify --repair and recover too), and a
// flip in the last frame dropped the committed end with exit 0.
func TestDamagedLogCostsOneFrame(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		frame int // 3: turn 3's snap; 8: turn 5's end
	}{{"middle", 3}, {"last", 8}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newStoreEnv(t)
			// The binary meets the middle frame; the last runs in-process.
			e.inProcess = tc.name == "last"
			path, starts := fiveTurnsInTheLog(t, e)
			at := starts[tc.frame]
			damaged := flipLogByte(t, path, at+12+20)
			where := fmt.Sprintf("%s: frame fails its checksum at byte %d", path, at)
			warned := func(r cliResult) {
				t.Helper()
				if !strings.Contains(r.stderr, where) || !strings.Contains(r.stderr, "turnback verify --repair") {
					t.Errorf("no word of the damage (%q and the fix):\n%v", where, r)
				}
			}
			r := e.ok("log")
			warned(r)
			if n := turnsListed(r.stdout); n < 4 {
				t.Errorf("log on the damaged store lists %d turns:\n%v", n, r)
			}
			for _, args := range [][]string{{"status"}, {"show", "@1"}, {"diff", "@1"}, {"log", "--all"}} {
				warned(e.ok(args...))
			}
			for _, args := range [][]string{{"snap"}, {"end"}, {"undo"}, {"verify"}} {
				warned(e.expect(1, args...))
			}
			if now, _ := os.ReadFile(path); !bytes.Equal(now, damaged) {
				t.Fatal("a refused command changed the damaged log")
			}

			r = e.ok("verify", "--repair")
			kept, _ := filepath.Glob(path + ".damaged-*")
			if len(kept) != 1 || !strings.Contains(r.stdout, kept[0]) {
				t.Fatalf("the damaged log is not kept aside (%v):\n%v", kept, r)
			}
			if data, err := os.ReadFile(kept[0]); err != nil || !bytes.Equal(data, damaged) {
				t.Errorf("%s is not the damaged log byte for byte: %v", kept[0], err)
			}
			r = e.ok("log")
			if n := turnsListed(r.stdout); n < 4 || r.stderr != "" {
				t.Errorf("log after the repair lists %d turns:\n%v", n, r)
			}
			e.ok("verify")
			e.ok("status")
			e.ok("snap", "-m", "turn-6")
			e.write("f6.txt", "six\n")
			e.ok("end")
			e.ok("undo")
			if _, err := os.Stat(e.path("f6.txt")); !os.IsNotExist(err) {
				t.Errorf("undo after the repair left f6.txt: %v", err)
			}
		})
	}
}

// TestDamagedLogRecover: recover and recover --rollback work on a store
// whose write log is damaged (they keep what checks out, as verify
// --repair does, and say so); before, both exited 1.
func TestDamagedLogRecover(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	path, starts := fiveTurnsInTheLog(t, e)
	orig := e.store
	for i, args := range [][]string{{"recover"}, {"recover", "--rollback"}} {
		e.store = filepath.Join(e.base, fmt.Sprintf("store%d", i))
		if err := treetest.Copy(orig, e.store); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(e.store, "db", filepath.Base(path))
		flipLogByte(t, p, starts[5]+2)
		r := e.ok(args...)
		if !strings.Contains(r.stderr, "frame header damaged at byte "+fmt.Sprint(starts[5])) || !strings.Contains(r.stderr, p+".damaged-") {
			t.Errorf("%v: no word of the damaged log kept aside", r)
		}
		if n := turnsListed(e.ok("log").stdout); n < 4 {
			t.Errorf("after %v, log lists %d turns", args, n)
		}
	}
}

// TestDamagedLogRandomFlips: a byte flipped at random offsets of the
// log, each on a fresh copy of the store: log always works and lists at
// least four of the five turns, verify --repair leaves a store every
// command opens (exit 1 only with the content it names as missing), log
// then lists at least four turns, and new turns are recorded.
func TestDamagedLogRandomFlips(t *testing.T) {
	t.Parallel()
	e := newInProcessEnv(t) // 24 commands: in-process (env_test.go)
	path, _ := fiveTurnsInTheLog(t, e)
	orig := e.store
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range 4 {
		e.store = filepath.Join(e.base, fmt.Sprintf("copy%d", i))
		if err := treetest.Copy(orig, e.store); err != nil {
			t.Fatal(err)
		}
		at := rng.IntN(int(info.Size()))
		flipLogByte(t, filepath.Join(e.store, "db", filepath.Base(path)), at)
		if n := turnsListed(e.ok("log").stdout); n < 4 {
			t.Errorf("flip at %d: log lists %d turns", at, n)
		}
		r := e.run("verify", "--repair")
		if r.code != 0 && (r.code != 1 || !strings.Contains(r.stderr, "not found")) {
			t.Errorf("flip at %d: %v", at, r)
		}
		r = e.ok("log")
		if n := turnsListed(r.stdout); n < 4 {
			t.Errorf("flip at %d: after the repair log lists %d turns:\n%v", at, n, r)
		}
		e.ok("status")
		e.ok("snap", "-m", "next")
		e.write("next.txt", fmt.Sprint(i))
		e.ok("end")
		if !strings.Contains(e.ok("log").stdout, "next") {
			t.Errorf("flip at %d: the turn after the repair is not listed", at)
		}
	}
}

// TestDamagedLogRecapture: the frame lost is turn 1's end, which held
// f1.txt's content and the tree after it. verify --repair stores again
// what the folder still holds (f1.txt is unchanged): after it, verify
// names only the tree that is gone for good (exit 1), not f1.txt, and
// undo of the turns that do not need that tree puts the folder back.
func TestDamagedLogRecapture(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	path, starts := fiveTurnsInTheLog(t, e)
	flipLogByte(t, path, starts[0]+40)
	r := e.expect(1, "verify", "--repair")
	if !strings.Contains(r.stdout, "stored again what the folder still holds") {
		t.Errorf("no word of the capture:\n%v", r)
	}
	r = e.expect(1, "verify")
	if strings.Contains(r.stderr, "f1.txt") || !strings.Contains(r.stderr, "1 problems") {
		t.Errorf("verify after the repair:\n%v", r)
	}
	e.ok("undo", "3")
	for i := 1; i <= 5; i++ {
		_, err := os.Stat(e.path(fmt.Sprintf("f%d.txt", i)))
		if gone := os.IsNotExist(err); gone != (i > 2) {
			t.Errorf("after undo 3, f%d.txt: %v", i, err)
		}
	}
}
