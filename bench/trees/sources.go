//go:build linux

package trees

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/turnback/turnback/bench/truth"
)

// goCopyGenerator names the copy of the Go source tree in its marker.
const goCopyGenerator = "goroot-copy/1"

// GoSource returns the cached copy of $(go env GOROOT)/src, remade when
// the Go version changes.
func GoSource(cacheDir string, logf Logf) (*Tree, error) {
	out, err := exec.Command("go", "env", "GOROOT", "GOVERSION").Output()
	if err != nil {
		return nil, fmt.Errorf("trees: go env GOROOT: %w", err)
	}
	lines := strings.Fields(string(out))
	if len(lines) < 2 {
		return nil, fmt.Errorf("trees: go env: unexpected output %q", out)
	}
	goroot, gover := lines[0], lines[1]
	srcDir := filepath.Join(goroot, "src")
	dir := filepath.Join(cacheDir, "go-"+gover)
	tree := filepath.Join(dir, "tree")
	t := &Tree{Name: "go", Kind: "go", Dir: tree, truthPath: filepath.Join(dir, "manifest.gob"), Source: dirSource(srcDir), Info: map[string]any{"goroot": goroot, "go_version": gover}}
	if mk, ok := readMarker(dir); ok && mk.Generator == goCopyGenerator && mk.Source == srcDir && mk.GoVersion == gover {
		if ref, err := truth.Load(t.truthPath); err == nil {
			t.Truth, t.Cached = ref, true
			logf("go: cached copy of %s (%s)", srcDir, gover)
			return t.finish(), nil
		}
	}
	logf("go: copying %s into %s", srcDir, tree)
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	start := time.Now()
	if t.Truth, err = copyTree(srcDir, tree); err != nil {
		return nil, err
	}
	t.PrepSecs = time.Since(start).Seconds()
	if err := t.cache(dir, &marker{Generator: goCopyGenerator, Source: srcDir, GoVersion: gover}); err != nil {
		return nil, err
	}
	return t.finish(), nil
}

// User copies a folder the user named into a scratch directory in the
// cache (or, with inPlace, uses it as it is).
func User(cacheDir, src string, inPlace bool, logf Logf) (*Tree, error) {
	abs, err := filepath.Abs(src)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("--tree %s: not a directory", src)
	}
	sum := sha256.Sum256([]byte(abs))
	name := "user:" + filepath.Base(abs)
	t := &Tree{Name: name, Kind: "user", Info: map[string]any{"source": abs, "in_place": inPlace}}
	start := time.Now()
	if inPlace {
		logf("%s: using %s in place (hashing it for verification)", name, abs)
		ref, err := truth.Scan(abs)
		if err != nil {
			return nil, err
		}
		t.Dir, t.Truth = abs, ref
	} else {
		dst := filepath.Join(cacheDir, "user-"+hex.EncodeToString(sum[:6]), "tree")
		logf("%s: copying %s into %s", name, abs, dst)
		if err := os.RemoveAll(filepath.Dir(dst)); err != nil {
			return nil, err
		}
		ref, err := copyTree(abs, dst)
		if err != nil {
			return nil, err
		}
		t.Dir, t.Truth, t.Source = dst, ref, dirSource(abs)
	}
	t.PrepSecs = time.Since(start).Seconds()
	return t.finish(), nil
}
