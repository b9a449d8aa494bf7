package agent

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// A plugin file is the whole of what init writes for an agent that
// runs no hook commands (Agent.plugin): init writes it, or rewrites it
// when it is turnback's but differs (another binary); removal deletes
// it. A file of that name without commandMark is the user's and is
// never touched. The file notes the folders init made for it
// (pluginMade: its folder; pluginMadeAbove: the one above too), and
// removal deletes those when it leaves them empty, never others.
const (
	pluginMade      = "// turnback init made this folder\n"
	pluginMadeAbove = "// turnback init made the folder above it too\n"
)

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
		body := bytes.ReplaceAll(bytes.ReplaceAll(old, []byte(pluginMade), nil), []byte(pluginMadeAbove), nil)
		if bytes.Equal(body, data) {
			return false, nil
		}
		fi, err := os.Stat(path)
		if err != nil {
			return false, fmt.Errorf("turnback init: %w", err)
		}
		return true, writeAtomic(path, withMarks(data, old), fi.Mode().Perm())
	case !errors.Is(err, os.ErrNotExist):
		return false, fmt.Errorf("turnback init: %w", err)
	}
	var marks []byte
	dir := filepath.Dir(path)
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		marks = append(marks, pluginMade...)
		if _, err := os.Lstat(filepath.Dir(dir)); errors.Is(err, os.ErrNotExist) {
			marks = append(marks, pluginMadeAbove...)
		}
	}
	if err := writeNew(path, withMarks(data, marks)); err != nil {
		return false, fmt.Errorf("turnback init: %w", err)
	}
	return true, nil
}

// withMarks is data with the folder marks found in old after its first
// line.
func withMarks(data, old []byte) []byte {
	var marks []byte
	for _, m := range []string{pluginMade, pluginMadeAbove} {
		if bytes.Contains(old, []byte(m)) {
			marks = append(marks, m...)
		}
	}
	i := bytes.IndexByte(data, '\n') + 1
	return append(append(append([]byte{}, data[:i]...), marks...), data[i:]...)
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
	dir := filepath.Dir(path)
	if bytes.Contains(old, []byte(pluginMade)) && os.Remove(dir) == nil && bytes.Contains(old, []byte(pluginMadeAbove)) {
		os.Remove(filepath.Dir(dir)) // only if empty
	}
	return true, true, nil
}
