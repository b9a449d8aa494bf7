//go:build unix

package walker

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/manifest/treetest"
)

// settle is how long tests wait after writing files so that the stat
// cache trusts them (their mtime and ctime must be older than the start
// of the capture by more than racyWindow).
const settle = racyWindow + 150*time.Millisecond

// node is one path of a test work tree.
type node struct {
	path   string        // slash-separated, relative to the work tree
	kind   manifest.Kind // file, dir or symlink
	mode   uint32        // Unix permission bits with setuid/setgid/sticky (files and dirs)
	data   string        // file content
	target string        // symlink target
}

func fileNode(p string, mode uint32, data string) node {
	return node{path: p, kind: manifest.KindFile, mode: mode, data: data}
}
func dirNode(p string, mode uint32) node { return node{path: p, kind: manifest.KindDir, mode: mode} }
func linkNode(p, target string) node {
	return node{path: p, kind: manifest.KindSymlink, target: target}
}

func abs(dir, rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }

func mkdirAll(t testing.TB, dir, rel string) {
	t.Helper()
	if err := os.MkdirAll(abs(dir, rel), 0o755); err != nil {
		t.Fatal(err)
	}
}

func removeAll(t testing.TB, dir, rel string) {
	t.Helper()
	if err := os.RemoveAll(abs(dir, rel)); err != nil {
		t.Fatal(err)
	}
}

func chmod(t testing.TB, dir, rel string, mode uint32) {
	t.Helper()
	if err := os.Chmod(abs(dir, rel), manifest.FileMode(mode)); err != nil {
		t.Fatal(err)
	}
}

// build creates nodes below dir (through treetest.Write). Permission
// bits are applied after content, directories last, so restrictive modes
// do not get in the way and new children do not inherit a parent's
// setgid bit.
func build(t testing.TB, dir string, nodes []node) {
	t.Helper()
	tr := treetest.Tree{}
	for _, n := range nodes {
		switch n.kind {
		case manifest.KindFile:
			tr[n.path] = treetest.File(n.data, manifest.FileMode(n.mode))
		case manifest.KindDir:
			tr[n.path] = treetest.Dir(manifest.FileMode(n.mode))
		case manifest.KindSymlink:
			tr[n.path] = treetest.Symlink(n.target)
		}
	}
	treetest.MustWrite(t, dir, tr)
}

// ageTree sets the mtime of every file below dir to an hour ago; its
// ctime becomes now, so callers wait settle before a capture that should
// fill the stat cache.
func ageTree(t testing.TB, dir string) {
	t.Helper()
	old := time.Now().Add(-time.Hour).Truncate(time.Second).Add(123456789)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			return os.Chtimes(p, old, old)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func newStore(t testing.TB) *cas.Store {
	t.Helper()
	return newStoreOn(t, cas.NewMemory())
}

func newStoreOn(t testing.TB, b cas.Backend) *cas.Store {
	t.Helper()
	s, err := cas.NewStore(b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// openRoot opens dir as an os.Root, closed when the test ends.
func openRoot(t testing.TB, dir string) *os.Root {
	t.Helper()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// snap runs Capture on dir and fails the test on error.
func snap(t testing.TB, dir string, s *cas.Store, opts Options) *Result {
	t.Helper()
	res, err := Capture(context.Background(), openRoot(t, dir), s, opts)
	if err != nil {
		t.Fatalf("Capture: %v", err)
	}
	if res.Root.IsZero() {
		t.Fatal("Capture returned a zero root")
	}
	return res
}

// flatten loads every stored tree below root (through manifest.NewStoreLoader, which
// decodes them with manifest.Decode) and returns each entry by path.
// flatten maps every path of the snapshot to its entry, owners left out
// (most tests are about content; owner tests use flattenOwned).
func flatten(t testing.TB, s *cas.Store, root cas.Hash) map[string]manifest.Entry {
	t.Helper()
	out := flattenOwned(t, s, root)
	for p, e := range out {
		e.Owned, e.UID, e.GID = false, 0, 0
		out[p] = e
	}
	return out
}

// flattenOwned maps every path of the snapshot to its entry as stored.
func flattenOwned(t testing.TB, s *cas.Store, root cas.Hash) map[string]manifest.Entry {
	t.Helper()
	out := map[string]manifest.Entry{}
	err := manifest.Walk(context.Background(), manifest.NewStoreLoader(s), root, func(p string, e *manifest.Entry) error {
		out[p] = *e
		return nil
	})
	if err != nil {
		t.Fatalf("walk stored snapshot: %v", err)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// readContent reads content h back from the store.
func readContent(t testing.TB, s *cas.Store, h cas.Hash) []byte {
	t.Helper()
	r, err := s.Open(context.Background(), h)
	if err != nil {
		t.Fatalf("open content %s: %v", h.Short(), err)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("read content %s: %v", h.Short(), err)
	}
	return data
}

// checkSnapshot asserts that the snapshot root holds exactly nodes, with
// every field of every entry as the node (and the disk) says.
func checkSnapshot(t *testing.T, s *cas.Store, dir string, root cas.Hash, nodes []node) {
	t.Helper()
	got := flatten(t, s, root)
	want := map[string]node{}
	for _, n := range nodes {
		want[n.path] = n
	}
	for _, p := range sortedKeys(got) {
		if _, ok := want[p]; !ok {
			t.Errorf("snapshot has unexpected %q: %+v", p, got[p])
		}
	}
	for _, p := range sortedKeys(want) {
		n := want[p]
		e, ok := got[p]
		if !ok {
			t.Errorf("snapshot lacks %q", p)
			continue
		}
		if e.Name != filepath.Base(filepath.FromSlash(p)) {
			t.Errorf("%q: name %q", p, e.Name)
		}
		if e.Kind != n.kind {
			t.Errorf("%q: kind %v, want %v", p, e.Kind, n.kind)
			continue
		}
		if e.Uncaptured || e.Files != 0 {
			t.Errorf("%q: uncaptured=%v files=%d, want captured", p, e.Uncaptured, e.Files)
		}
		wantMode := n.mode
		if n.kind == manifest.KindSymlink {
			fi, err := os.Lstat(abs(dir, p))
			if err != nil {
				t.Fatal(err)
			}
			wantMode = manifest.ModeOf(fi.Mode())
		}
		if e.Mode != wantMode {
			t.Errorf("%q: mode %#o, want %#o", p, e.Mode, wantMode)
		}
		switch n.kind {
		case manifest.KindFile:
			if e.Size != int64(len(n.data)) || e.Hash != cas.Sum([]byte(n.data)) || e.Target != "" {
				t.Errorf("%q: size %d hash %s target %q, want size %d hash %s", p, e.Size, e.Hash.Short(), e.Target, len(n.data), cas.Sum([]byte(n.data)).Short())
			} else if data := readContent(t, s, e.Hash); !bytes.Equal(data, []byte(n.data)) {
				t.Errorf("%q: stored content differs (%d bytes, want %d)", p, len(data), len(n.data))
			}
		case manifest.KindDir:
			if e.Size != 0 || e.Hash.IsZero() || e.Target != "" {
				t.Errorf("%q: dir with size %d hash %s target %q", p, e.Size, e.Hash.Short(), e.Target)
			}
		case manifest.KindSymlink:
			if e.Target != n.target || e.Size != int64(len(n.target)) || !e.Hash.IsZero() {
				t.Errorf("%q: target %q size %d hash %s, want target %q", p, e.Target, e.Size, e.Hash.Short(), n.target)
			}
		}
	}
}

// countKinds returns the numbers of files, dirs and symlinks in nodes.
func countKinds(nodes []node) (files, dirs, links int64, bytes int64) {
	for _, n := range nodes {
		switch n.kind {
		case manifest.KindFile:
			files++
			bytes += int64(len(n.data))
		case manifest.KindDir:
			dirs++
		case manifest.KindSymlink:
			links++
		}
	}
	return
}

// pathsOf returns the sorted paths of a flattened snapshot.
func pathsOf(m map[string]manifest.Entry) []string { return sortedKeys(m) }

// swapStat replaces statFunc for the rest of the test. Tests that call
// it must not run in parallel.
func swapStat(t *testing.T, f func(fs.FileInfo) fileStat) {
	t.Helper()
	old := statFunc
	statFunc = f
	t.Cleanup(func() { statFunc = old })
}

// noCtime is statOf as on a platform without ctime and inode numbers.
func noCtime(fi fs.FileInfo) fileStat {
	st := statOf(fi)
	st.ctime, st.ino = 0, 0
	return st
}

// cacheRecord loads the stat cache record of dir (nil if none).
func cacheRecord(c *StatCache, dir string) *dirRecord {
	return c.load(context.Background(), dir, nil)
}

// statSnapshot records everything Capture must not change about a work
// tree: every path with its kind, permission bits, size, mtime and
// ctime (any metadata change moves ctime), inode and content.
func statSnapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		st := statOf(fi)
		rel, _ := filepath.Rel(dir, p)
		desc := fmt.Sprintf("mode=%v size=%d mtime=%d ctime=%d ino=%d", fi.Mode(), st.size, st.mtime, st.ctime, st.ino)
		if fi.Mode().IsRegular() && fi.Mode().Perm()&0o444 != 0 {
			desc += fmt.Sprintf(" content=%s", contentHash(p))
		}
		out[filepath.ToSlash(rel)] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// contentHash hashes a file's content without touching its atime where
// the platform allows.
func contentHash(p string) string {
	f, err := os.OpenFile(p, os.O_RDONLY|noAtime, 0)
	if err != nil {
		f, err = os.Open(p)
		if err != nil {
			return "unreadable"
		}
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return "unreadable"
	}
	return cas.Sum(data).Short()
}

func diffSnapshots(before, after map[string]string) []string {
	var d []string
	for _, p := range sortedKeys(before) {
		if a, ok := after[p]; !ok {
			d = append(d, fmt.Sprintf("%s: removed", p))
		} else if a != before[p] {
			d = append(d, fmt.Sprintf("%s:\n  before %s\n  after  %s", p, before[p], a))
		}
	}
	for _, p := range sortedKeys(after) {
		if _, ok := before[p]; !ok {
			d = append(d, fmt.Sprintf("%s: created", p))
		}
	}
	return d
}

// bufBackend is a Memory backend whose batches, like Badger's
// WriteBatch, write nothing before Flush. With failBlobs set, Flush of a
// batch holding anything but stat cache records fails (a full disk, say)
// and writes nothing.
type bufBackend struct {
	*cas.Memory
	failBlobs atomic.Bool
}

func newBufBackend() *bufBackend { return &bufBackend{Memory: cas.NewMemory()} }

func (b *bufBackend) NewBatch() cas.Batch { return &bufBatch{b: b} }

type bufBatch struct {
	b    *bufBackend
	mu   sync.Mutex
	ents []cas.Entry
	done bool
}

func (w *bufBatch) Put(key, value []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return errors.New("batch done")
	}
	w.ents = append(w.ents, cas.Entry{Key: bytes.Clone(key), Value: bytes.Clone(value)})
	return nil
}

func (w *bufBatch) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return errors.New("batch done")
	}
	w.done = true
	if w.b.failBlobs.Load() {
		for _, e := range w.ents {
			if !bytes.HasPrefix(e.Key, []byte(cachePrefix)) {
				return errors.New("simulated write failure: no space left on device")
			}
		}
	}
	if len(w.ents) == 0 {
		return nil
	}
	return w.b.Memory.Set(context.Background(), w.ents...)
}

func (w *bufBatch) Cancel() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done, w.ents = true, nil
}

// cacheKeys lists the stat cache keys in b.
func cacheKeys(t testing.TB, b cas.Backend) []string {
	t.Helper()
	var keys []string
	err := b.Scan(context.Background(), []byte(cachePrefix), true, func(k, _ []byte) error {
		keys = append(keys, string(k))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// genTree writes files files spread over dirs directories (two levels)
// below dir, each with distinct short content, and returns their count.
func genTree(t testing.TB, dir string, dirs, filesPerDir int) int {
	t.Helper()
	n := 0
	for d := 0; d < dirs; d++ {
		sub := fmt.Sprintf("d%02d/e%d", d, d%3)
		mkdirAll(t, dir, sub)
		for f := 0; f < filesPerDir; f++ {
			var b [8]byte
			binary.LittleEndian.PutUint64(b[:], uint64(d*100003+f))
			treetest.MustWrite(t, dir, treetest.Tree{fmt.Sprintf("%s/f%03d.txt", sub, f): treetest.File(fmt.Sprintf("file %d/%d %x\n", d, f, b), 0o644)})
			n++
		}
	}
	return n
}

// problemPaths returns the paths of res's problems.
func problemPaths(res *Result) []string {
	var ps []string
	for _, p := range res.Stats.Problems {
		ps = append(ps, p.Path)
	}
	return ps
}
