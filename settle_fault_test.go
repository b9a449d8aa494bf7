package turnback_test

// review43: faults injected into the store while a restore that
// rewrites ignore rules captures its result again (settle.go).

import (
	"crypto/rand"
	"fmt"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/testtier"
)

// TestSettleFaultKeepsAmendedCheckpoint: the user edits b just before
// a rule-changing restore replaces it; the restore saves that edit and
// amends its checkpoint (amendMeta: trees a deferred store keeps in
// memory until the next Sync). Its recapture then reads 9,000 small
// files the restore un-ignored: past 512 KiB of writes the store opens
// its database for writing, and that fails (ENOSPC on the overlay
// append, as on a nearly full disk). The failed open drops every write
// not yet synced, the amended checkpoint's trees too. settle takes the
// failure for a capture that failed and the restore commits, naming
// the amended checkpoint: verify then finds its root tree missing,
// and the user's edit of b cannot be brought back. On main the restore
// exits 0; either it must fail (the next command finishes it) or its
// checkpoint must be whole.
func TestSettleFaultKeepsAmendedCheckpoint(t *testing.T) {
	testtier.Slow(t)   // 9,000 files
	ctx := t.Context() // not parallel: cas.SetFaults is process-wide
	const user = "b2, the user's edit during the restore"
	const dirs, perDir = 60, 150 // under the large-directory rule
	rt := newRegressTree(t)
	rt.write(".gitignore", "d*/\n")
	rt.write("b", "b0")
	rt.snap()
	rt.write(".gitignore", "")
	unignored := rt.snap()
	rt.write(".gitignore", "d*/\n")
	rt.write("b", "b1")
	buf := make([]byte, 240) // stored in blocks, not packs
	for d := range dirs {
		for i := range perDir {
			_, _ = rand.Read(buf)
			rt.write(fmt.Sprintf("d%02d/f%03d", d, i), string(buf))
		}
	}
	rt.snap()
	rt.reopen() // deferred again: the snap's writes opened the database
	var armed, hit atomic.Bool
	rt.repo.SetRestoreHook(func(step string) error {
		switch step {
		case "place b":
			rt.write("b", user)
		case "commit":
			armed.Store(true)
		}
		return nil
	})
	remove := cas.SetFaults(func(op, _ string) error {
		if op == "overlay" && armed.Load() && hit.CompareAndSwap(false, true) {
			return syscall.ENOSPC
		}
		return nil
	})
	res, err := rt.repo.Restore(ctx, unignored, turnback.RestoreOptions{})
	remove()
	rt.repo.SetRestoreHook(nil)
	if !hit.Load() {
		t.Fatalf("no overlay append after the commit step (restore: %v)", err)
	}
	if err != nil {
		t.Logf("restore: %v (the next command finishes it)", err)
	} else if len(res.Conflicts) != 1 || res.Conflicts[0].Path != "b" {
		t.Fatalf("restore: conflicts %v; want b, displaced", res.Conflicts)
	}
	_, serr := rt.repo.Status(ctx)
	rt.do("status", serr)
	if v, err := rt.repo.Verify(ctx); err != nil {
		t.Errorf("verify after the restore: %v %+v", err, v.Problems)
	}
	cps, err := rt.repo.Checkpoints(ctx)
	rt.do("checkpoints", err)
	var cp string
	for _, c := range cps {
		if strings.HasPrefix(c.Command, "restore") {
			cp = c.ID
		}
	}
	if cp == "" {
		t.Fatalf("no checkpoint of the restore in %+v", cps)
	}
	if _, err := rt.repo.Restore(ctx, cp, turnback.RestoreOptions{}); err != nil {
		t.Fatalf("restore of the restore's checkpoint %.12s: %v", cp, err)
	}
	if got := rt.read("b"); got != user {
		t.Fatalf("after restore of the checkpoint %.12s, b holds %q", cp, got)
	}
}
