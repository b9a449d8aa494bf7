//go:build unix

package cas

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4/table"
)

// TestPrecheckUnderTheLock: a writer holding the store changes its
// files; what another command sees of them before it holds the lock is
// no reason to call the store damaged. Here the holder hides a table
// the MANIFEST lists (as a flush shows one listed before a look at the
// folder saw its file), then puts it back and lets go: every open,
// write-mode, deferred or read-only, waits and succeeds. Damage still
// seen under the lock is still refused.
func TestPrecheckUnderTheLock(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b := openTestBadger(t, dir)
	if err := b.Set(ctx, Entry{Key: []byte("m/a"), Value: []byte("v")}); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	// aTable returns a table file the MANIFEST lists.
	aTable := func(t *testing.T) string {
		t.Helper()
		m, err := readManifest(filepath.Join(dir, manifestName))
		if err != nil || len(m.live) == 0 {
			t.Fatalf("no table: %v", err)
		}
		for id := range m.live {
			return table.NewFilename(id, dir)
		}
		return ""
	}
	for _, o := range []BadgerOptions{
		{LockWait: 10 * time.Second},
		{LockWait: 10 * time.Second, Deferred: true},
		{LockWait: 10 * time.Second, ReadOnly: true},
	} {
		t.Run(fmt.Sprintf("readonly=%v,deferred=%v", o.ReadOnly, o.Deferred), func(t *testing.T) {
			sst := aTable(t)
			aside := sst + ".aside"
			lock, err := lockDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer lock.Close()
			if err := os.Rename(sst, aside); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				b, err := OpenBadger(ctx, dir, o)
				if err == nil {
					err = b.Close()
				}
				done <- err
			}()
			time.Sleep(50 * time.Millisecond)
			if err := os.Rename(aside, sst); err != nil {
				t.Fatal(err)
			}
			lock.Close()
			if err := <-done; err != nil {
				t.Errorf("open while the holder changed the folder: %v", err)
			}
		})
	}
	// Damage that stays is refused, under the lock.
	sst := aTable(t)
	if err := os.Rename(sst, sst+".aside"); err != nil {
		t.Fatal(err)
	}
	for _, o := range []BadgerOptions{{}, {Deferred: true}, {ReadOnly: true}} {
		if _, err := OpenBadger(ctx, dir, o); !errorsIsDamaged(err) {
			t.Errorf("open %+v of a store missing a table: %v, want ErrDamaged", o, err)
		}
	}
}

func errorsIsDamaged(err error) bool { return errors.Is(err, ErrDamaged) }
