package cli

// Helpers of the end-to-end tests of undo, redo and restore
// (undo_e2e_test.go): concurrent subtests, stamps that prove a failed
// command touched nothing, and the strict parser of the --json document.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// subtestGroup runs subtests concurrently, beyond go test's -parallel limit
// (GOMAXPROCS): the tests mostly wait for the disk (fsync), not the CPU.
// At most maxGroupRunning subtests of all groups run at once.
type subtestGroup struct {
	t  *testing.T
	wg sync.WaitGroup
}

const maxGroupRunning = 6

var groupRunning = make(chan struct{}, maxGroupRunning)

func newSubtestGroup(t *testing.T) *subtestGroup { return &subtestGroup{t: t} }

// run starts subtest name; wait must be called before the test returns.
func (g *subtestGroup) run(name string, fn func(t *testing.T)) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		groupRunning <- struct{}{}
		defer func() { <-groupRunning }()
		g.t.Run(name, fn)
	}()
}

func (g *subtestGroup) wait() { g.wg.Wait() }

// jsonOK runs a restoring command with --json, wants exit 0 and returns
// its strictly parsed document.
func (e *cliEnv) jsonOK(args ...string) restoreDoc {
	e.t.Helper()
	r := e.ok(append([]string{"--json"}, args...)...)
	return parseRestoreDoc(e.t, r, false)
}

// snapID runs snap or end with --json and returns the full snapshot id.
func (e *cliEnv) snapID(args ...string) string {
	e.t.Helper()
	r := e.ok(append([]string{"--json"}, args...)...)
	var doc struct {
		Snapshot string `json:"snapshot"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		e.t.Fatalf("%v: %v", r, err)
	}
	if !fullIDPattern.MatchString(doc.Snapshot) {
		e.t.Fatalf("snapshot id %q is not 64 hex digits: %v", doc.Snapshot, r)
	}
	return doc.Snapshot
}

// stampTree records modification times, mode and inode-level identity of
// everything below root (root included), to prove a failed command
// touched nothing at all.
func stampTree(t testing.TB, root string) map[string]string {
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

func sameStamps(t testing.TB, what string, got, want map[string]string) {
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

// pseudoRandom returns n deterministic pseudo-random bytes.
func pseudoRandom(n int, seed uint64) string {
	var key [32]byte
	key[0], key[1] = byte(seed), byte(seed>>8)
	b := make([]byte, n)
	_, _ = rand.NewChaCha8(key).Read(b)
	return string(b)
}

// The --json document of undo, redo and restore.

var fullIDPattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

// restoreDoc is the --json document of undo, redo and restore.
type restoreDoc struct {
	Turns         int
	Restored      []string
	Deleted       []string
	Created       []string
	Conflicts     []string
	NotRestorable []string
	Checkpoint    string
	Keys          []string // every top-level key, sorted
}

// restoreDocKeys are the keys the CLI contract defines.
var restoreDocKeys = []string{"turns", "restored", "deleted", "created", "conflicts", "not_restorable", "checkpoint", "paths", "merged", "markers", "moved"}

// parseRestoreDoc parses stdout strictly: exactly one JSON object, no
// duplicate keys, every contract key present with its type, path lists
// of clean relative slash-separated paths, and no key beyond the
// contract except "reasons" (path -> reason, an extension the CLI adds)
// and, on failure only, "error" and "exit_code".
func parseRestoreDoc(t testing.TB, r cliResult, failed bool) restoreDoc {
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
	doc := restoreDoc{}
	for k := range raw {
		doc.Keys = append(doc.Keys, k)
	}
	sort.Strings(doc.Keys)
	// "partial": restore of an undo's or redo's state (docs/contract.md).
	allowed := map[string]bool{"reasons": true, "partial": true}
	if failed {
		allowed["error"], allowed["exit_code"], allowed["incomplete"] = true, true, true
		for _, k := range []string{"error", "exit_code"} {
			if _, ok := raw[k]; !ok {
				fail("failure document lacks %q", k)
			}
		}
	}
	for _, k := range restoreDocKeys {
		if _, ok := raw[k]; !ok {
			fail("key %q missing", k)
		}
	}
	contract := map[string]bool{}
	for _, k := range restoreDocKeys {
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
	var merged, markers []string
	lists := map[string]*[]string{"restored": &doc.Restored, "deleted": &doc.Deleted, "created": &doc.Created,
		"conflicts": &doc.Conflicts, "not_restorable": &doc.NotRestorable, "merged": &merged, "markers": &markers}
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
			if !isCleanPath(p) {
				fail("key %q: %q is not a clean relative slash-separated path", k, p)
			}
		}
		*dst = sortedPaths(*dst)
	}
	if err := json.Unmarshal(raw["checkpoint"], &doc.Checkpoint); err != nil {
		fail("checkpoint: %v", err)
	}
	if doc.Checkpoint != "" && !fullIDPattern.MatchString(doc.Checkpoint) {
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

func isCleanPath(p string) bool {
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

func sortedPaths(ps []string) []string {
	out := append([]string{}, ps...)
	sort.Strings(out)
	return out
}

// checkPathList checks a path list of a document (sorted by parseRestoreDoc).
func checkPathList(t testing.TB, what string, got []string, want ...string) {
	t.Helper()
	want = sortedPaths(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != len(want) {
		t.Errorf("%s: got %q, want %q", what, got, want)
	}
}

// checkRestoreDoc checks all path lists and the turn count of a document.
func checkRestoreDoc(t testing.TB, what string, d restoreDoc, turns int, restored, deleted, created, conflicts, notRestorable []string) {
	t.Helper()
	if d.Turns != turns {
		t.Errorf("%s: turns %d, want %d", what, d.Turns, turns)
	}
	checkPathList(t, what+": restored", d.Restored, restored...)
	checkPathList(t, what+": deleted", d.Deleted, deleted...)
	checkPathList(t, what+": created", d.Created, created...)
	checkPathList(t, what+": conflicts", d.Conflicts, conflicts...)
	checkPathList(t, what+": not_restorable", d.NotRestorable, notRestorable...)
}

// shortCheckpoint extracts the id of the human "checkpoint ID (turnback
// restore ID goes back)" line.
var checkpointLine = regexp.MustCompile(`(?m)^checkpoint ([0-9a-f]{12}) \(turnback restore ([0-9a-f]{12}) goes back\)$`)

func shortCheckpoint(t testing.TB, r cliResult) string {
	t.Helper()
	m := checkpointLine.FindStringSubmatch(r.stdout)
	if m == nil || m[1] != m[2] {
		t.Fatalf("no checkpoint line in the output: %v", r)
	}
	return m[1]
}

// oneJSONObject decodes stdout that must hold exactly one JSON object.
func oneJSONObject(s string) (map[string]any, error) {
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
