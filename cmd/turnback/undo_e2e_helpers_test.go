package main

// Helpers of the end-to-end tests of undo, redo and restore
// (undo_e2e_test.go): they build the real binary once, run it on real
// temporary folders and compare whole trees byte for byte.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// ueGroup runs subtests concurrently, beyond go test's -parallel limit
// (GOMAXPROCS): the tests mostly wait for the disk (fsync), not the CPU.
// At most ueMaxRunning subtests of all groups run at once.
type ueGroup struct {
	t  *testing.T
	wg sync.WaitGroup
}

const ueMaxRunning = 6

var ueRunning = make(chan struct{}, ueMaxRunning)

func ueSubtests(t *testing.T) *ueGroup { return &ueGroup{t: t} }

// run starts subtest name; wait must be called before the test returns.
func (g *ueGroup) run(name string, fn func(t *testing.T)) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		ueRunning <- struct{}{}
		defer func() { <-ueRunning }()
		g.t.Run(name, fn)
	}()
}

func (g *ueGroup) wait() { g.wg.Wait() }

// ueEnv is one work tree with its own HOME and XDG_DATA_HOME (hence its
// own store).
type ueEnv struct {
	t     *testing.T
	bin   string
	home  string
	xdg   string
	dir   string   // the work tree, passed as -C
	extra []string // extra environment, KEY=VALUE
}

func newUE(t *testing.T) *ueEnv {
	t.Helper()
	base := t.TempDir()
	// Runs before TempDir's removal: make every directory writable again
	// (tests set restrictive modes).
	t.Cleanup(func() { ueUnlock(base) })
	e := &ueEnv{t: t, bin: testBinary(t), home: filepath.Join(base, "home"), xdg: filepath.Join(base, "xdg"), dir: filepath.Join(base, "work")}
	for _, d := range []string{e.home, e.xdg, e.dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func ueUnlock(root string) {
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o755)
		}
		return nil
	})
}

// ueResult is one run of the binary.
type ueResult struct {
	stdout, stderr string
	code           int
	args           []string
}

func (r ueResult) String() string {
	return fmt.Sprintf("turnback %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

// raw runs the binary with args as given (no -C).
func (e *ueEnv) raw(args ...string) ueResult {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.bin, args...)
	cmd.Dir = e.home
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "TURNBACK_") || k == "HOME" || k == "XDG_DATA_HOME" {
			continue
		}
		env = append(env, kv)
	}
	cmd.Env = append(append(env, "HOME="+e.home, "XDG_DATA_HOME="+e.xdg), e.extra...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := ueResult{stdout: stdout.String(), stderr: stderr.String(), args: args}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.Exited():
		res.code = ee.ExitCode()
	default:
		e.t.Fatalf("turnback %s: %v\nstderr:\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return res
}

// tb runs the binary on the work tree (-C dir).
func (e *ueEnv) tb(args ...string) ueResult {
	e.t.Helper()
	return e.raw(append([]string{"-C", e.dir}, args...)...)
}

// ok runs the binary on the work tree and fails the test unless it exits 0.
func (e *ueEnv) ok(args ...string) ueResult {
	e.t.Helper()
	r := e.tb(args...)
	if r.code != 0 {
		e.t.Fatalf("want exit 0, got %v", r)
	}
	return r
}

// code runs the binary on the work tree and fails the test unless it
// exits with want.
func (e *ueEnv) code(want int, args ...string) ueResult {
	e.t.Helper()
	r := e.tb(args...)
	if r.code != want {
		e.t.Fatalf("want exit %d, got %v", want, r)
	}
	return r
}

// jsonOK runs a restoring command with --json, wants exit 0 and returns
// its strictly parsed document.
func (e *ueEnv) jsonOK(args ...string) ueDoc {
	e.t.Helper()
	r := e.ok(append([]string{"--json"}, args...)...)
	return ueParseDoc(e.t, r, false)
}

// snapID runs snap or end with --json and returns the full snapshot id.
func (e *ueEnv) snapID(args ...string) string {
	e.t.Helper()
	r := e.ok(append([]string{"--json"}, args...)...)
	var doc struct {
		Snapshot string `json:"snapshot"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		e.t.Fatalf("%v: %v", r, err)
	}
	if !ueFullID.MatchString(doc.Snapshot) {
		e.t.Fatalf("snapshot id %q is not 64 hex digits: %v", doc.Snapshot, r)
	}
	return doc.Snapshot
}

// Work tree edits (paths relative to the work tree, slash-separated).

func (e *ueEnv) path(p string) string { return filepath.Join(e.dir, filepath.FromSlash(p)) }

func (e *ueEnv) write(p, data string) { e.t.Helper(); ueWriteFile(e.t, e.path(p), data) }

func (e *ueEnv) rm(p string) {
	e.t.Helper()
	if err := os.RemoveAll(e.path(p)); err != nil {
		e.t.Fatal(err)
	}
}

func (e *ueEnv) mv(from, to string) {
	e.t.Helper()
	if err := os.MkdirAll(filepath.Dir(e.path(to)), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.Rename(e.path(from), e.path(to)); err != nil {
		e.t.Fatal(err)
	}
}

func (e *ueEnv) chmod(p string, m fs.FileMode) {
	e.t.Helper()
	if err := os.Chmod(e.path(p), m); err != nil {
		e.t.Fatal(err)
	}
}

func (e *ueEnv) link(target, p string) {
	e.t.Helper()
	if err := os.MkdirAll(filepath.Dir(e.path(p)), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.Symlink(target, e.path(p)); err != nil {
		e.t.Fatal(err)
	}
}

func (e *ueEnv) mkdir(p string) {
	e.t.Helper()
	if err := os.MkdirAll(e.path(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
}

func (e *ueEnv) tree() ueTree { e.t.Helper(); return ueRead(e.t, e.dir) }

// same compares the work tree with want.
func (e *ueEnv) same(what string, want ueTree) {
	e.t.Helper()
	ueSame(e.t, what, ueRead(e.t, e.dir), want)
}

func ueWriteFile(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Trees.

// ueNode is one path of a tree: kind, permission bits (files and
// directories), content (files) or target (symlinks).
type ueNode struct {
	Kind   string // "file", "dir" or "symlink"
	Mode   fs.FileMode
	Data   string
	Target string
}

// ueTree maps slash-separated paths relative to a root to their nodes.
type ueTree map[string]ueNode

func ueF(data string) ueNode { return ueNode{Kind: "file", Mode: 0o644, Data: data} }
func ueFM(data string, m fs.FileMode) ueNode {
	return ueNode{Kind: "file", Mode: m, Data: data}
}
func ueD() ueNode               { return ueDM(0o755) }
func ueDM(m fs.FileMode) ueNode { return ueNode{Kind: "dir", Mode: m} }
func ueL(target string) ueNode  { return ueNode{Kind: "symlink", Target: target} }
func (n ueNode) String() string { return ueDescribe(n) }

func ueDescribe(n ueNode) string {
	switch n.Kind {
	case "symlink":
		return fmt.Sprintf("symlink -> %q", n.Target)
	case "dir":
		return fmt.Sprintf("dir %04o", n.Mode)
	}
	d := n.Data
	if len(d) > 40 {
		d = d[:40] + "..."
	}
	return fmt.Sprintf("file %04o %d bytes %q", n.Mode, len(n.Data), d)
}

// clone returns a copy of tr with the given paths set (a zero ueNode
// removes the path).
func (tr ueTree) with(changes ueTree) ueTree {
	out := ueTree{}
	for p, n := range tr {
		out[p] = n
	}
	for p, n := range changes {
		if n.Kind == "" {
			delete(out, p)
		} else {
			out[p] = n
		}
	}
	return out
}

// without returns a copy of tr without p and everything below it.
func (tr ueTree) without(ps ...string) ueTree {
	out := ueTree{}
	for q, n := range tr {
		drop := false
		for _, p := range ps {
			if q == p || strings.HasPrefix(q, p+"/") {
				drop = true
			}
		}
		if !drop {
			out[q] = n
		}
	}
	return out
}

// under returns the part of tr below p (keys keep their full paths).
func (tr ueTree) under(p string) ueTree {
	out := ueTree{}
	for q, n := range tr {
		if q == p || strings.HasPrefix(q, p+"/") {
			out[q] = n
		}
	}
	return out
}

// ueWrite creates tree under root. Parents not listed get 0755; modes of
// listed directories are set last, deepest first.
func ueWrite(t *testing.T, root string, tree ueTree) {
	t.Helper()
	paths := make([]string, 0, len(tree))
	for p := range tree {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var dirs []string
	for _, p := range paths {
		n, full := tree[p], filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch n.Kind {
		case "file":
			if err = os.WriteFile(full, []byte(n.Data), 0o600); err == nil {
				err = os.Chmod(full, n.Mode)
			}
		case "dir":
			err = os.MkdirAll(full, 0o755)
			dirs = append(dirs, p)
		case "symlink":
			err = os.Symlink(n.Target, full)
		default:
			err = fmt.Errorf("%s: unknown kind %q", p, n.Kind)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Chmod(filepath.Join(root, filepath.FromSlash(dirs[i])), tree[dirs[i]].Mode); err != nil {
			t.Fatal(err)
		}
	}
}

const uePermMask = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// ueRead reads everything below root (root itself excluded), never
// following symlinks.
func ueRead(t *testing.T, root string) ueTree {
	t.Helper()
	out := ueTree{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch m := fi.Mode(); {
		case m.IsDir():
			out[rel] = ueNode{Kind: "dir", Mode: m & uePermMask}
		case m&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = ueNode{Kind: "symlink", Target: target}
		case m.IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = ueNode{Kind: "file", Mode: m & uePermMask, Data: string(data)}
		default:
			return fmt.Errorf("%s: unexpected file type %v", rel, m)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading %s: %v", root, err)
	}
	return out
}

// ueSame reports every difference between got and want.
func ueSame(t *testing.T, what string, got, want ueTree) {
	t.Helper()
	keys := map[string]bool{}
	for p := range got {
		keys[p] = true
	}
	for p := range want {
		keys[p] = true
	}
	var paths []string
	for p := range keys {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var diffs []string
	for _, p := range paths {
		g, gok := got[p]
		w, wok := want[p]
		switch {
		case !gok:
			diffs = append(diffs, fmt.Sprintf("  %s: missing, want %s", p, w))
		case !wok:
			diffs = append(diffs, fmt.Sprintf("  %s: unexpected %s", p, g))
		case g != w:
			diffs = append(diffs, fmt.Sprintf("  %s: got %s, want %s", p, g, w))
		}
	}
	if len(diffs) > 0 {
		if len(diffs) > 25 {
			diffs = append(diffs[:25], fmt.Sprintf("  ... and %d more", len(diffs)-25))
		}
		t.Errorf("%s: the tree differs:\n%s", what, strings.Join(diffs, "\n"))
	}
}

// ueStamp records modification times, mode and inode-level identity of
// everything below root (root included), to prove a failed command
// touched nothing at all.
func ueStamp(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = fmt.Sprintf("%v %d %s", fi.Mode(), fi.Size(), fi.ModTime().Format(time.RFC3339Nano))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func ueSameStamps(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	var diffs []string
	for p, w := range want {
		if g, ok := got[p]; !ok {
			diffs = append(diffs, fmt.Sprintf("  %s: gone (was %s)", p, w))
		} else if g != w {
			diffs = append(diffs, fmt.Sprintf("  %s: %s, was %s", p, g, w))
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			diffs = append(diffs, fmt.Sprintf("  %s: new (%s)", p, g))
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("%s: paths were touched:\n%s", what, strings.Join(diffs, "\n"))
	}
}

// ueBytes returns n deterministic pseudo-random bytes.
func ueBytes(n int, seed uint64) string {
	var key [32]byte
	key[0], key[1] = byte(seed), byte(seed>>8)
	b := make([]byte, n)
	_, _ = rand.NewChaCha8(key).Read(b)
	return string(b)
}

// The --json document of undo, redo and restore.

var ueFullID = regexp.MustCompile(`^[0-9a-f]{64}$`)

// ueDoc is the --json document of undo, redo and restore.
type ueDoc struct {
	Turns         int
	Restored      []string
	Deleted       []string
	Created       []string
	Conflicts     []string
	NotRestorable []string
	Checkpoint    string
	Keys          []string // every top-level key, sorted
}

// ueDocKeys are the keys the CLI contract defines.
var ueDocKeys = []string{"turns", "restored", "deleted", "created", "conflicts", "not_restorable", "checkpoint"}

// ueParseDoc parses stdout strictly: exactly one JSON object, no
// duplicate keys, every contract key present with its type, path lists
// of clean relative slash-separated paths, and no key beyond the
// contract except "reasons" (path -> reason, an extension the CLI adds)
// and, on failure only, "error" and "exit_code".
func ueParseDoc(t *testing.T, r ueResult, failed bool) ueDoc {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s\n%v", fmt.Sprintf(format, args...), r)
	}
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		fail("stdout does not start a JSON object: %v %v", tok, err)
	}
	raw := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			fail("bad JSON: %v", err)
		}
		k, ok := tok.(string)
		if !ok {
			fail("bad JSON key %v", tok)
		}
		if _, dup := raw[k]; dup {
			fail("duplicate key %q", k)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			fail("bad JSON value of %q: %v", k, err)
		}
		raw[k] = v
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		fail("JSON object not closed: %v %v", tok, err)
	}
	if tok, err := dec.Token(); err != io.EOF {
		fail("more than one JSON document on stdout (next token %v, %v)", tok, err)
	}
	doc := ueDoc{}
	for k := range raw {
		doc.Keys = append(doc.Keys, k)
	}
	sort.Strings(doc.Keys)
	allowed := map[string]bool{"reasons": true}
	if failed {
		allowed["error"], allowed["exit_code"], allowed["incomplete"] = true, true, true
		for _, k := range []string{"error", "exit_code"} {
			if _, ok := raw[k]; !ok {
				fail("failure document lacks %q", k)
			}
		}
	}
	for _, k := range ueDocKeys {
		if _, ok := raw[k]; !ok {
			fail("key %q missing", k)
		}
	}
	contract := map[string]bool{}
	for _, k := range ueDocKeys {
		contract[k] = true
	}
	for k := range raw {
		if !contract[k] && !allowed[k] {
			fail("key %q is not in the contract", k)
		}
	}
	strict := func(k string, v any) {
		t.Helper()
		d := json.NewDecoder(bytes.NewReader(raw[k]))
		d.UseNumber()
		if err := d.Decode(v); err != nil {
			fail("key %q: %v", k, err)
		}
	}
	var turns json.Number
	strict("turns", &turns)
	if n, err := turns.Int64(); err != nil || n < 0 {
		fail("turns %q is not a count", turns)
	} else {
		doc.Turns = int(n)
	}
	lists := map[string]*[]string{"restored": &doc.Restored, "deleted": &doc.Deleted, "created": &doc.Created,
		"conflicts": &doc.Conflicts, "not_restorable": &doc.NotRestorable}
	for k, dst := range lists {
		if !bytes.HasPrefix(bytes.TrimSpace(raw[k]), []byte("[")) {
			fail("key %q is %s, want an array", k, raw[k])
		}
		strict(k, dst)
		seen := map[string]bool{}
		for _, p := range *dst {
			if seen[p] {
				fail("key %q lists %q twice", k, p)
			}
			seen[p] = true
			if !ueCleanPath(p) {
				fail("key %q: %q is not a clean relative slash-separated path", k, p)
			}
		}
		*dst = ueSorted(*dst)
	}
	if err := json.Unmarshal(raw["checkpoint"], &doc.Checkpoint); err != nil {
		fail("checkpoint: %v", err)
	}
	if doc.Checkpoint != "" && !ueFullID.MatchString(doc.Checkpoint) {
		fail("checkpoint %q is not a full-length id", doc.Checkpoint)
	}
	if rs, ok := raw["reasons"]; ok {
		var reasons map[string]string
		if err := json.Unmarshal(rs, &reasons); err != nil {
			fail("reasons: %v", err)
		}
	}
	if failed {
		var code json.Number
		strict("exit_code", &code)
		if n, err := code.Int64(); err != nil || int(n) != r.code {
			fail("exit_code %s, process exited %d", code, r.code)
		}
	}
	return doc
}

func ueCleanPath(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") {
		return false
	}
	for _, c := range strings.Split(p, "/") {
		if c == "" || c == "." || c == ".." {
			return false
		}
	}
	return true
}

func ueSorted(ps []string) []string {
	out := append([]string{}, ps...)
	sort.Strings(out)
	return out
}

// ueList checks a path list of a document (sorted by ueParseDoc).
func ueList(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	want = ueSorted(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != len(want) {
		t.Errorf("%s: got %q, want %q", what, got, want)
	}
}

// ueDocIs checks all path lists and the turn count of a document.
func ueDocIs(t *testing.T, what string, d ueDoc, turns int, restored, deleted, created, conflicts, notRestorable []string) {
	t.Helper()
	if d.Turns != turns {
		t.Errorf("%s: turns %d, want %d", what, d.Turns, turns)
	}
	ueList(t, what+": restored", d.Restored, restored...)
	ueList(t, what+": deleted", d.Deleted, deleted...)
	ueList(t, what+": created", d.Created, created...)
	ueList(t, what+": conflicts", d.Conflicts, conflicts...)
	ueList(t, what+": not_restorable", d.NotRestorable, notRestorable...)
}

// ueShortCheckpoint extracts the id of the human "checkpoint ID (turnback
// restore ID goes back)" line.
var ueCheckpointLine = regexp.MustCompile(`(?m)^checkpoint ([0-9a-f]{12}) \(turnback restore ([0-9a-f]{12}) goes back\)$`)

func ueShortCheckpoint(t *testing.T, r ueResult) string {
	t.Helper()
	m := ueCheckpointLine.FindStringSubmatch(r.stdout)
	if m == nil || m[1] != m[2] {
		t.Fatalf("no checkpoint line in the output: %v", r)
	}
	return m[1]
}

// ueOneObject decodes stdout that must hold exactly one JSON object.
func ueOneObject(s string) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more than one JSON document")
	}
	return v, nil
}
