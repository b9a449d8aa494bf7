package turnback_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/testtier"
)

// TestModelRaceEdits extends the model test with edits made at random
// points *during* undos, redos and restores (from the restore hook, so
// each sequence replays from its seed): before staging, between staged
// files, at the commit point, between taking a path out and settling it,
// and after. Sequences of snaps, ends, user edits, undos, redos (with and
// without force) and restores of known states run on random trees; after
// every restoring command the last edit of each path made during it must
// be in its file, or in the checkpoint the command returned; a command
// that reported a conflict must have changed nothing but the edits; and
// no staging file is ever left in the folder. At most 200 sequences in
// 8 s; 3 s in the fast tier (internal/testtier).
func TestModelRaceEdits(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("TURNBACK_MODEL_RACE_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	t.Logf("seed %d (replay: TURNBACK_MODEL_RACE_SEED=%d)", seed, seed)
	budget := 8 * time.Second
	if testtier.Short() {
		budget = 3 * time.Second
	}
	deadline := time.Now().Add(budget)
	stats := map[string]int{}
	n := 0
	for ; n < 200 && time.Now().Before(deadline); n++ {
		raceSequence(t, seed+uint64(n), stats)
		if t.Failed() {
			t.Fatalf("sequence seed %d failed", seed+uint64(n))
		}
	}
	t.Logf("%d sequences: %v", n, stats)
	if stats["edit in checkpoint"] == 0 || stats["edit in file"] == 0 {
		t.Errorf("the sequences never exercised both outcomes: %v", stats)
	}
}

type raceModelEdit struct{ path, data string }

func raceSequence(t *testing.T, seed uint64, stats map[string]int) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 3))
	dir, store := t.TempDir(), t.TempDir()
	names := []string{"a", "b", "c", "d/e", "d/f", "d/g/h", "i", "j/k"}
	write := func(p, data string) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	userEdit := func(tag string) {
		p := names[rng.IntN(len(names))]
		if rng.IntN(5) == 0 {
			os.Remove(filepath.Join(dir, filepath.FromSlash(p)))
			return
		}
		write(p, fmt.Sprintf("%s %d\n", tag, rng.IntN(1000)))
	}
	for i := 0; i < 5; i++ {
		userEdit("initial")
	}
	repo, err := turnback.Open(ctx, dir, turnback.Options{Store: store, LockWait: -1, KeepTurns: -1, KeepAge: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	var ids []string
	for step := 0; step < 14; step++ {
		switch k := rng.IntN(10); {
		case k < 3:
			userEdit(fmt.Sprintf("user step %d", step))
		case k < 5:
			res, err := repo.Snap(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, res.Snapshot.String())
			userEdit(fmt.Sprintf("agent step %d", step))
			userEdit(fmt.Sprintf("agent step %d", step))
		case k < 6:
			if res, err := repo.End(ctx); err == nil && !res.Snapshot.IsZero() {
				ids = append(ids, res.Snapshot.String())
			}
		default:
			raceRestoring(t, ctx, rng, repo, dir, names, ids, step, stats)
		}
	}
}

func raceRestoring(t *testing.T, ctx context.Context, rng *rand.Rand, repo *turnback.Repo, dir string, names, ids []string, step int, stats map[string]int) {
	t.Helper()
	force := rng.IntN(2) == 0
	op := []string{"undo", "redo", "restore"}[rng.IntN(3)]
	if op == "restore" && len(ids) == 0 {
		op = "undo"
	}
	before := raceDisk(t, dir)
	var edits []raceModelEdit
	at := rng.IntN(12) // the step at which the edits start
	k := 0
	repo.SetRestoreHook(func(name string) error {
		if k++; k-1 == at || (k-1 > at && rng.IntN(8) == 0) {
			p := names[rng.IntN(len(names))]
			data := fmt.Sprintf("RACE %d/%d at %q\n", step, k, name)
			full := filepath.Join(dir, filepath.FromSlash(p))
			if _, err := os.Stat(filepath.Dir(full)); err != nil {
				return nil // its directory is not there (yet)
			}
			if rng.IntN(2) == 0 {
				if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
					return nil // a directory there now, say
				}
			} else {
				tmp := full + ".tmp-race"
				if err := os.WriteFile(tmp, []byte(data), 0o644); err != nil {
					return nil
				}
				if err := os.Rename(tmp, full); err != nil {
					os.Remove(tmp)
					return nil
				}
			}
			edits = append(edits, raceModelEdit{p, data})
		}
		return nil
	})
	defer repo.SetRestoreHook(nil)
	var res *turnback.RestoreResult
	var err error
	switch op {
	case "undo":
		res, err = repo.Undo(ctx, 1, turnback.UndoOptions{Force: force})
	case "redo":
		res, err = repo.Redo(ctx, 1, turnback.RedoOptions{Force: force})
	default:
		res, err = repo.Restore(ctx, ids[rng.IntN(len(ids))], turnback.RestoreOptions{})
	}
	var ce *turnback.ConflictError
	conflict := errors.As(err, &ce)
	if err != nil && !conflict {
		t.Fatalf("step %d: %s (force %v): %v", step, op, force, err)
	}
	stats[op]++
	if conflict {
		stats["conflict"]++
	}
	after := raceDisk(t, dir)
	for p := range after {
		if strings.HasPrefix(filepath.Base(p), ".turnback-") {
			t.Errorf("step %d: %s left %s in the folder", step, op, p)
		}
	}
	last := map[string]string{}
	for _, e := range edits {
		last[e.path] = e.data
	}
	if conflict && !force {
		// Nothing changed but the edits.
		want := before
		for p, d := range last {
			want[p] = d
		}
		for _, p := range raceKeys(want, after) {
			if want[p] != after[p] && !strings.HasSuffix(p, ".tmp-race") {
				t.Errorf("step %d: %s reported a conflict but %s changed: %q -> %q", step, op, p, want[p], after[p])
			}
		}
	}
	var cpFiles map[string]string
	for p, data := range last {
		if after[p] == data {
			stats["edit in file"]++
			continue
		}
		if res == nil || res.Checkpoint.IsZero() {
			t.Errorf("step %d: %s (force %v, conflict %v): the edit of %s is gone and there is no checkpoint", step, op, force, conflict, p)
			continue
		}
		if cpFiles == nil {
			_, _, diffs, err := repo.Diff(ctx, res.Checkpoint.String(), "")
			if err != nil {
				t.Fatal(err)
			}
			cpFiles = map[string]string{}
			for _, d := range diffs {
				cpFiles[d.Path] = string(d.OldData)
			}
		}
		if cpFiles[p] != data {
			t.Errorf("step %d: %s (force %v): LOST: the edit %q of %s is neither in the file (%q) nor in checkpoint %s (%q)",
				step, op, force, data, p, after[p], res.Checkpoint.Short(), cpFiles[p])
			continue
		}
		stats["edit in checkpoint"]++
	}
}

// raceDisk reads every regular file under dir.
func raceDisk(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if de.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			out[filepath.ToSlash(rel)] = string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func raceKeys(a, b map[string]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []map[string]string{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}
