package fullbin

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestPath: turnback-full is found beside the executable only; in
// turnback-full itself Path is its own executable; a daemon runs this
// executable when turnback-full is missing.
func TestPath(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	beside := filepath.Join(filepath.Dir(exe), Name)
	if runtime.GOOS == "windows" {
		beside += ".exe"
	}
	if _, err := os.Stat(beside); err == nil {
		t.Skipf("%s exists", beside)
	}
	// Not on PATH either: another version may be there.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, filepath.Base(beside)), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	_, err = Path()
	var me *MissingError
	if !errors.As(err, &me) || !errors.Is(err, ErrMissing) || me.Exe != exe {
		t.Fatalf("Path without turnback-full: %v", err)
	}
	if d, err := Daemon(); err != nil || d != exe {
		t.Errorf("Daemon without turnback-full: %q, %v; want %q", d, err, exe)
	}

	if err := os.WriteFile(beside, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Skipf("cannot write beside the test binary: %v", err)
	}
	t.Cleanup(func() { os.Remove(beside) })
	if p, err := Path(); err != nil || p != beside {
		t.Errorf("Path: %q, %v; want %q", p, err, beside)
	}
	if d, err := Daemon(); err != nil || d != beside {
		t.Errorf("Daemon: %q, %v; want %q", d, err, beside)
	}

	Self = true
	t.Cleanup(func() { Self = false })
	if p, err := Path(); err != nil || p != exe {
		t.Errorf("Path in turnback-full: %q, %v; want %q", p, err, exe)
	}
}
