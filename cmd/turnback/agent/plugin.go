package agent

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/turnback/turnback/internal/lazyre"
)

// A plugin file is the whole of what init writes for an agent that
// runs no hook commands (Agent.plugin): init writes it, or rewrites it
// when it is turnback's but differs (another binary); removal deletes
// it. A file of that name without commandMark is the user's and is
// never touched. The file notes how many folders init made for it, its
// own and those above (madeLine), and removal deletes those when it
// leaves them empty, never others.

// madeLine is the line that notes n folders init made.
func madeLine(n int) string { return fmt.Sprintf("// turnback init made %d folders for it\n", n) }

// madeRe finds madeLine in a plugin file.
var madeRe = lazyre.New(`(?m)^// turnback init made ([0-9]+) folders for it\n`)

// made is the number of folders the plugin file data notes.
func made(data []byte) int {
	m := madeRe().FindSubmatch(data)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// ErrNotOurs: a file init would write is there and is not turnback's.
var ErrNotOurs = errors.New("turnback init: not turnback's")

// installPlugin writes the plugin running command's binary to path and
// reports whether it changed.
func (a *Agent) installPlugin(path, command string) (bool, error) {
	data := a.plugin(a.Bin(command))
	old, err := os.ReadFile(path)
	switch {
	case err == nil && !bytes.Contains(old, []byte(commandMark)):
		return false, fmt.Errorf("%w: %s was not written by turnback init; it was left untouched (move it away and run init again)", ErrNotOurs, path)
	case err == nil:
		n := made(old)
		if bytes.Equal(madeRe().ReplaceAll(old, nil), data) {
			return false, nil
		}
		fi, err := os.Stat(path)
		if err != nil {
			return false, fmt.Errorf("turnback init: %w", err)
		}
		return true, writeAtomic(path, withMade(data, n), fi.Mode().Perm())
	case !errors.Is(err, os.ErrNotExist):
		return false, fmt.Errorf("turnback init: %w", err)
	}
	n := 0
	for dir := filepath.Dir(path); filepath.Dir(dir) != dir; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
			break
		}
		n++
	}
	if err := writeNew(path, withMade(data, n)); err != nil {
		return false, fmt.Errorf("turnback init: %w", err)
	}
	return true, nil
}

// withMade is data with madeLine(n) after its first line (none for 0).
func withMade(data []byte, n int) []byte {
	if n == 0 {
		return data
	}
	i := bytes.IndexByte(data, '\n') + 1
	return append(append(append([]byte{}, data[:i]...), madeLine(n)...), data[i:]...)
}

// uninstallPlugin deletes the plugin at path if it is turnback's, and
// the folders it made if that leaves them empty.
func (a *Agent) uninstallPlugin(path string) (changed, deleted bool, err error) {
	old, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) || err == nil && !bytes.Contains(old, []byte(commandMark)) {
		return false, false, nil
	}
	if err == nil {
		err = os.Remove(path)
	}
	if err != nil {
		return false, false, fmt.Errorf("turnback init: %w", err)
	}
	for dir, n := filepath.Dir(path), made(old); n > 0 && os.Remove(dir) == nil; dir, n = filepath.Dir(dir), n-1 {
	}
	return true, true, nil
}
