package turnback_test

// The model-based test (model_test.go): paths, contents and the disk
// operations that change the folder and the model together.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/turnback/turnback/manifest"
)

// ---------------------------------------------------------------------
// Paths and contents.

var (
	modelNames     = []string{"a", "b", "c", "a", "b", "c", "a.b", "a-", "é"}
	modelFileModes = []uint32{0o644, 0o644, 0o600, 0o755, 0o640, 0o444, 0o400, 0o700, 0o664, 0o4755, 0o2750}
	modelDirModes  = []uint32{0o755, 0o755, 0o700, 0o750, 0o775, 0o711, 0o2755, 0o1777, 0o777}
	modelTargets   = []string{"a", "b", "c", "a/b", "../a", "..", "/etc/passwd", "nowhere", "a.b", "é", "./c", "b/c/a"}
	modelContents  = []string{"", "x", "y", "hello\n", "hello\nworld\n", "xx", "yy"}
)

func (h *harness) pick(xs []string) string { return xs[h.rng.Intn(len(xs))] }

func (h *harness) randomPath() string {
	depth := 1
	switch r := h.rng.Intn(100); {
	case r >= 80:
		depth = 3
	case r >= 40:
		depth = 2
	}
	parts := make([]string, depth)
	for i := range parts {
		parts[i] = h.pick(modelNames)
	}
	return strings.Join(parts, "/")
}

func (h *harness) content() string {
	switch r := h.rng.Intn(13); {
	case r < 5:
		return h.pick(modelContents)
	case r < 8:
		return strings.Repeat(string(rune('a'+h.rng.Intn(3))), 1+h.rng.Intn(3000))
	case r < 10:
		// Lines of text, for line edits and undo --merge (lineEdit).
		var b strings.Builder
		for i, n := 0, 8+h.rng.Intn(30); i < n; i++ {
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String()
	default:
		b := make([]byte, h.rng.Intn(4000))
		h.rng.Read(b)
		return string(b)
	}
}

// sameSizeContent returns content of the same length as d, different
// from it when d is not empty.
func (h *harness) sameSizeContent(d string) string {
	if d == "" {
		return ""
	}
	b := []byte(d)
	i := h.rng.Intn(len(b))
	b[i] ^= byte(1 + h.rng.Intn(255))
	return string(b)
}

func (h *harness) fileMode() uint32 { return modelFileModes[h.rng.Intn(len(modelFileModes))] }
func (h *harness) dirMode() uint32  { return modelDirModes[h.rng.Intn(len(modelDirModes))] }

// pathsOf lists the model's paths of the given kinds (all if none).
func (h *harness) pathsOf(kinds ...mkind) []string {
	var out []string
	for _, p := range h.fs.paths() {
		if len(kinds) == 0 || slices.Contains(kinds, h.fs[p].kind) {
			out = append(out, p)
		}
	}
	return out
}

func (h *harness) abs(p string) string { return filepath.Join(h.dir, filepath.FromSlash(p)) }

// parentsFree reports whether every ancestor of p is a directory or
// missing.
func (h *harness) parentsFree(p string) bool {
	for q := manifest.ParentPath(p); q != ""; q = manifest.ParentPath(q) {
		if n := h.fs.get(q); n != nil && n.kind != mDir {
			return false
		}
	}
	return true
}

// mkParents creates the missing ancestors of p (parentsFree(p) holds).
func (h *harness) mkParents(p string) {
	var missing []string
	for q := manifest.ParentPath(p); q != ""; q = manifest.ParentPath(q) {
		if h.fs.get(q) == nil {
			missing = append(missing, q)
		}
	}
	for i := len(missing) - 1; i >= 0; i-- {
		h.diskMkdir(missing[i], h.dirMode())
		h.logf("user: mkdir %s (%v)", missing[i], h.fs[missing[i]])
	}
}

// freePath returns a path that is absent and whose ancestors are
// directories or absent, or "".
func (h *harness) freePath() string {
	for i := 0; i < 20; i++ {
		p := h.randomPath()
		if h.fs.get(p) == nil && h.parentsFree(p) {
			return p
		}
	}
	return ""
}

// ---------------------------------------------------------------------
// Disk operations, each applied to the model too.

func (h *harness) must(err error, what string) {
	if err != nil {
		h.failf("user edit %s: %v", what, err)
	}
}

func (h *harness) diskMkdir(p string, mode uint32) {
	h.must(os.Mkdir(h.abs(p), 0o700), "mkdir "+p)
	h.must(os.Chmod(h.abs(p), manifest.FileMode(mode)), "chmod "+p)
	h.fs[p] = mnode{kind: mDir, mode: mode}
}

// diskWrite writes a file: in place (same inode) when it exists and
// inPlace is set, else by writing a temporary file and renaming it over.
func (h *harness) diskWrite(p, data string, mode uint32, inPlace bool) {
	name := h.abs(p)
	old := h.fs.get(p)
	if old != nil && old.kind == mFile && inPlace {
		if old.mode&0o200 == 0 {
			h.must(os.Chmod(name, manifest.FileMode(old.mode|0o200)), "chmod u+w "+p)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_TRUNC, 0)
		h.must(err, "open "+p)
		_, err = f.WriteString(data)
		h.must(err, "write "+p)
		h.must(f.Close(), "close "+p)
	} else {
		tmp := filepath.Join(filepath.Dir(name), "~tmp")
		h.must(os.WriteFile(tmp, []byte(data), 0o600), "write "+p)
		h.must(os.Chmod(tmp, manifest.FileMode(mode)), "chmod "+p)
		h.must(os.Rename(tmp, name), "rename over "+p)
	}
	// A write by a non-root user clears setuid and setgid: set the mode
	// again, always.
	h.must(os.Chmod(name, manifest.FileMode(mode)), "chmod "+p)
	h.fs[p] = mnode{kind: mFile, mode: mode, data: data}
}

func (h *harness) diskSymlink(p, target string) {
	name := h.abs(p)
	tmp := filepath.Join(filepath.Dir(name), "~tmp")
	h.must(os.Symlink(target, tmp), "symlink "+p)
	h.must(os.Rename(tmp, name), "rename symlink over "+p)
	h.fs[p] = mnode{kind: mLink, data: target}
}

func (h *harness) diskRemove(p string) {
	h.must(os.RemoveAll(h.abs(p)), "remove "+p)
	delete(h.fs, p)
	for q := range h.fs {
		if isUnder(q, p) {
			delete(h.fs, q)
		}
	}
}

func (h *harness) diskRename(src, dst string) {
	h.must(os.Rename(h.abs(src), h.abs(dst)), "rename "+src+" "+dst)
	moved := mtree{}
	for q, n := range h.fs {
		if q == src || isUnder(q, src) {
			moved[dst+q[len(src):]] = n
			delete(h.fs, q)
		}
	}
	delete(h.fs, dst)
	for q, n := range moved {
		h.fs[q] = n
	}
}
