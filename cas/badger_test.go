package cas

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Badger's directory lock is flock(2), which belongs to an open file
// description: a second open in the same process conflicts as another
// process would, so most of the lock behaviour is tested in-process.
// TestBadgerLockOtherProcess checks the real thing once.

func TestBadgerLock(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	first, err := OpenBadger(ctx, dir, BadgerOptions{Holder: "test holder"})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if err := first.Set(ctx, Entry{Key: []byte("k"), Value: []byte("from first")}); err != nil {
		t.Fatal(err)
	}

	t.Run("busy after the wait", func(t *testing.T) {
		var waits atomic.Int32
		var noted string
		start := time.Now()
		_, err := OpenBadger(ctx, dir, BadgerOptions{
			LockWait: 300 * time.Millisecond,
			Holder:   "second",
			OnWait:   func(holder string) { waits.Add(1); noted = holder },
		})
		elapsed := time.Since(start)
		if !errors.Is(err, ErrBusy) {
			t.Fatalf("second open: %v, want ErrBusy", err)
		}
		if !strings.Contains(err.Error(), "test holder") || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
			t.Errorf("busy error %q does not name the holder", err)
		}
		if elapsed < 300*time.Millisecond {
			t.Errorf("gave up after %v, before the 300ms lock wait", elapsed)
		}
		if waits.Load() != 1 || !strings.Contains(noted, "test holder") {
			t.Errorf("OnWait called %d times, last with %q", waits.Load(), noted)
		}
	})

	t.Run("no wait", func(t *testing.T) {
		called := false
		_, err := OpenBadger(ctx, dir, BadgerOptions{OnWait: func(string) { called = true }})
		if !errors.Is(err, ErrBusy) {
			t.Fatalf("open without wait: %v, want ErrBusy", err)
		}
		if called {
			t.Error("OnWait called although Open does not wait")
		}
	})

	t.Run("context ends the wait", func(t *testing.T) {
		cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := OpenBadger(cctx, dir, BadgerOptions{LockWait: time.Minute})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("open with an expiring context: %v", err)
		}
		if time.Since(start) > 30*time.Second {
			t.Errorf("the context did not cut the wait short")
		}
	})

	t.Run("released during the wait", func(t *testing.T) {
		closed := make(chan error, 1)
		go func() {
			time.Sleep(200 * time.Millisecond)
			closed <- first.Close()
		}()
		second, err := OpenBadger(ctx, dir, BadgerOptions{LockWait: time.Minute, Holder: "second holder"})
		if err := <-closed; err != nil {
			t.Errorf("close first: %v", err)
		}
		if err != nil {
			t.Fatalf("open after the holder closed: %v", err)
		}
		if v, err := second.Get(ctx, []byte("k")); err != nil || string(v) != "from first" {
			t.Errorf("Get = %q, %v", v, err)
		}
		if note := readHolder(dir); !strings.Contains(note, "second holder") {
			t.Errorf("holder note %q after the second open", note)
		}
		if err := second.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(holderPath(dir)); !os.IsNotExist(err) {
			t.Errorf("holder note left after Close: %v", err)
		}
		third, err := OpenBadger(ctx, dir, BadgerOptions{})
		if err != nil {
			t.Fatalf("open after Close: %v", err)
		}
		third.Close()
	})
}

const holdEnv = "CAS_TEST_HOLD_STORE"

// TestHelperHoldStore is not a test: TestBadgerLockOtherProcess runs the
// test binary with it to hold a store in another process.
func TestHelperHoldStore(t *testing.T) {
	dir := os.Getenv(holdEnv)
	if dir == "" {
		t.Skip("helper process for TestBadgerLockOtherProcess")
	}
	ctx := context.Background()
	b, err := OpenBadger(ctx, dir, BadgerOptions{Holder: "subprocess holder"})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	if err := b.Set(ctx, Entry{Key: []byte("child"), Value: []byte("was here")}); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("ready")
	// Hold the store until killed.
	time.Sleep(time.Minute)
	os.Exit(2)
}

// TestBadgerLockOtherProcess: another process holding the store makes
// Open fail with ErrBusy naming it; once that process dies (killed, no
// Close) the lock is gone and what it wrote is there.
func TestBadgerLockOtherProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldStore$", "-test.count=1")
	cmd.Env = append(os.Environ(), holdEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "ready" {
		t.Fatalf("helper process said %q, %v", line, err)
	}

	ctx := context.Background()
	_, err = OpenBadger(ctx, dir, BadgerOptions{LockWait: 300 * time.Millisecond})
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("open while another process holds the store: %v, want ErrBusy", err)
	}
	want := fmt.Sprintf("subprocess holder (pid %d", cmd.Process.Pid)
	if !strings.Contains(err.Error(), want) {
		t.Errorf("busy error %q does not contain %q", err, want)
	}

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	b, err := OpenBadger(ctx, dir, BadgerOptions{LockWait: 10 * time.Second})
	if err != nil {
		t.Fatalf("open after the holder was killed: %v", err)
	}
	defer b.Close()
	if v, err := b.Get(ctx, []byte("child")); err != nil || string(v) != "was here" {
		t.Errorf("write of the killed process: %q, %v", v, err)
	}
}

// TestBadgerLargeValuesInPacks: chunks and blobs of at least
// packThreshold stored bytes go to pack files, whose space Reclaim gives
// back, and neither to Badger's value log, which barely ever shrinks,
// nor to its LSM tree, whose compactions would copy them over and over.
func TestBadgerLargeValuesInPacks(t *testing.T) {
	ctx := context.Background()
	sizeOf := func(dir, glob string) int64 {
		t.Helper()
		var n int64
		files, _ := filepath.Glob(filepath.Join(dir, glob))
		for _, f := range files {
			fi, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			n += fi.Size()
		}
		return n
	}
	dir := t.TempDir()
	s, err := NewStore(openTestBadger(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	w := s.NewWriter()
	file := randBytes(900, 6<<20)
	fh, _, err := w.PutFile(ctx, bytesReader(file), -1)
	if err != nil {
		t.Fatal(err)
	}
	single := randBytes(901, SmallFileMax) // largest single blob
	bigBlob := randBytes(902, 2<<20)       // over Badger's value threshold
	var hs []Hash
	for _, data := range [][]byte{single, bigBlob} {
		h, err := w.PutBlob(ctx, data)
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil { // Close trims the value log file
		t.Fatal(err)
	}
	total := int64(len(file) + len(single) + len(bigBlob))
	if v := sizeOf(dir, "*.vlog"); v > 64<<10 {
		t.Errorf("%d bytes of chunks and blobs left %d bytes in the value log", total, v)
	}
	if v := sizeOf(dir, "*.sst"); v > 64<<10 {
		t.Errorf("%d bytes of chunks and blobs left %d bytes in LSM tables", total, v)
	}
	if p := sizeOf(dir, "*"+packExt); p < total {
		t.Errorf("pack files hold %d bytes, want at least the %d stored", p, total)
	}
	s, err = NewStore(openTestBadger(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	readAllOK(t, s, fh, file)
	for i, data := range [][]byte{single, bigBlob} {
		got, err := s.GetBlob(ctx, hs[i])
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("blob %d after reopen: %d bytes, %v", i, len(got), err)
		}
	}
}
