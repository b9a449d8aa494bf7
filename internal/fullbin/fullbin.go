package fullbin

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// Name is turnback-full's file name, without the .exe of Windows.
const Name = "turnback-full"

// Self is set by turnback-full's main: this process is turnback-full.
var Self bool

// ErrMissing: turnback-full is not beside this executable.
var ErrMissing = errors.New("fullbin: turnback-full is not installed beside turnback")

// MissingError: turnback-full is not beside Exe, the running executable.
type MissingError struct{ Exe string }

func (e *MissingError) Error() string {
	return fmt.Sprintf("turnback-full is not installed beside %s: install both with go install github.com/turnback/turnback/cmd/...@latest (in a clone: go install ./cmd/...)", e.Exe)
}

func (e *MissingError) Unwrap() error { return ErrMissing }

// Path returns turnback-full's path: this executable when it is
// turnback-full, else the regular file of that name beside it.
func Path() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("fullbin: find this executable: %w", err)
	}
	if Self {
		return exe, nil
	}
	name := Name
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	tried := []string{filepath.Join(filepath.Dir(exe), name)}
	if real, err := filepath.EvalSymlinks(exe); err == nil && filepath.Dir(real) != filepath.Dir(exe) {
		tried = append(tried, filepath.Join(filepath.Dir(real), name))
	}
	for _, p := range tried {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", &MissingError{Exe: exe}
}

// Daemon returns the executable a watch daemon runs: turnback-full when
// it is there, else this one (its daemon then serves no push or pull).
func Daemon() (string, error) {
	if p, err := Path(); err == nil {
		return p, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("fullbin: find this executable: %w", err)
	}
	return exe, nil
}
