package cli

// Attacks on verify --repair's healing from the folder that found
// defects (both failed at 6305eff).

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/turnback/turnback/internal/testtier"
)

// flipStored flips one byte of the stored copy of content near off:
// random content is stored raw, so a window of it is found in a pack.
func flipStored(t *testing.T, e *cliEnv, content []byte, off int) {
	t.Helper()
	window := content[off : off+64]
	dbs := filepath.Join(e.xdg, "turnback", "*", "db")
	if e.store != "" {
		dbs = filepath.Join(e.store, "db")
	}
	packs, _ := filepath.Glob(filepath.Join(dbs, "*.pack"))
	for _, p := range packs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if i := bytes.Index(data, window); i >= 0 {
			data[i+10] ^= 0xff
			if err := os.WriteFile(p, data, 0o600); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("content at %d not found in the packs %v", off, packs)
}

// TestRepairHealsContentAlsoHeldByReference: big.bin was over
// the size limit in turn 1 (held by reference: Uncaptured) and stored
// in turn 2. One stored chunk is flipped; the folder's big.bin still
// holds the content. When verify walks a turn-1 snapshot first, the
// over-the-limit entry marks the content bad, and the stored entries
// that followed were not collected: verify --repair said "nothing to
// repair" and the damage stayed, though the folder holds exactly the
// content. Snapshots are walked in id
// order, so the test retries until a turn-1 snapshot sorts first.
func TestRepairHealsContentAlsoHeldByReference(t *testing.T) {
	t.Parallel()
	big := gcRandom(7, 1_200_000)
	var e *cliEnv
	for try := 0; ; try++ {
		if try == 30 {
			t.Fatal("no try put a turn-1 snapshot first")
		}
		e = newStoreEnv(t)
		ip := e.setup() // the tries are the setting, not the check
		e.writeBytes("big.bin", big)
		e.write("other.txt", fmt.Sprintf("try %d\n", try))
		lim := ip.with("TURNBACK_SIZE_LIMIT=1M")
		lim.run("snap")
		e.write("other.txt", fmt.Sprintf("try %d, turn 1\n", try))
		lim.run("end")
		ip.ok("snap")
		e.write("other.txt", fmt.Sprintf("try %d, turn 2\n", try))
		ip.ok("end")
		var all, turn1 []string
		for _, l := range strings.Split(ip.ok("log").stdout, "\n") {
			f := strings.Fields(l)
			if len(f) < 3 || (f[0] != "1" && f[0] != "2") {
				continue
			}
			all = append(all, f[1], f[2])
			if f[0] == "1" {
				turn1 = append(turn1, f[1], f[2])
			}
		}
		sort.Strings(all)
		if len(all) == 4 && (all[0] == turn1[0] || all[0] == turn1[1]) {
			t.Logf("try %d put a turn-1 snapshot first", try)
			break
		}
	}
	flipStored(t, e, big, 900_000)
	e.expect(1, "verify")
	r := e.run("verify", "--repair")
	if r.code != 0 || !strings.Contains(r.stdout, "read from big.bin, which still holds it") {
		t.Errorf("verify --repair did not store big.bin's content again, though the folder holds it:\n%s", r)
	}
	e.ok("verify")
}

// TestGCAfterHealKeepsDamagedPack: 0.bin (300 KB, a value of its own)
// and A.bin's chunks share pack 1; both are damaged, and only A.bin
// still holds its content in the folder. Before the repair, gc works.
// The repair stores A.bin's every chunk again, so pack 1 is left mostly
// dead and gc's repack reads 0.bin's damaged value to copy it. gc then
// failed on every run; now it keeps that pack, and verify still names
// 0.bin's damage, and only that.
// A pack holds 64 MiB: A.bin must fill one for the heal to leave it
// (cas's TestReclaimKeepsPackWithDamagedValue checks this with small
// packs in the fast tier).
func TestGCAfterHealKeepsDamagedPack(t *testing.T) {
	testtier.Slow(t)
	e := newCLI(t, "work").with("TURNBACK_SIZE_LIMIT=0")
	e.timeout = 0
	a := gcRandom(5, 70_000_000)
	small := gcRandom(6, 300_000)
	e.writeBytes("A.bin", a)
	e.writeBytes("0.bin", small)
	e.ok("snap")
	e.write("0.bin", "changed by the turn\n")
	e.ok("end")
	flipStored(t, e, small, 100)
	flipStored(t, e, a, 1000)
	e.expect(1, "verify")
	e.ok("gc")
	r := e.expect(1, "verify", "--repair")
	if !strings.Contains(r.stdout, "read from A.bin, which still holds it") {
		t.Fatalf("verify --repair did not heal A.bin:\n%s", r)
	}
	if r := e.run("gc"); r.code != 0 {
		t.Errorf("gc fails after the heal (it worked before):\n%s", r)
	}
	r = e.expect(1, "verify")
	if !strings.Contains(r.stderr, ": 0.bin: cas: corrupt data") || strings.Contains(r.stderr, "A.bin") {
		t.Errorf("after gc, verify should name 0.bin's damage and only that:\n%s", r.stderr)
	}
}
