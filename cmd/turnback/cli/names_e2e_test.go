package cli

// Names are data: hostile file names print quoted in human output (no
// control byte reaches the terminal, a newline never splits a line) and
// round-trip exactly through --json.

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/turnback/turnback/cmd/turnback/termout"
)

const (
	evilName   = "evil\x1b[2J\x1b[31mRED.txt"
	evilQuoted = `"evil\033[2J\033[31mRED.txt"`
	nlName     = "two\nlines.txt"
	nlQuoted   = `"two\nlines.txt"`
)

// noRawControl fails unless out is free of control bytes other than the
// newlines ending its lines, and no line starts with what follows the
// newline in nlName.
func noRawControl(t *testing.T, what, out string) {
	t.Helper()
	for i := 0; i < len(out); i++ {
		if c := out[i]; (c < 0x20 && c != '\n') || c == 0x7f {
			t.Errorf("%s: raw control byte %#x at %d:\n%q", what, c, i, out)
			return
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "lines.txt") {
			t.Errorf("%s: a name with a newline split a line:\n%s", what, out)
		}
	}
}

func (r cliResult) check(t *testing.T, what string) {
	t.Helper()
	noRawControl(t, what+" stdout", r.stdout)
	noRawControl(t, what+" stderr", r.stderr)
}

func wantLine(t *testing.T, what, out, line string) {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if l == line {
			return
		}
	}
	t.Errorf("%s: no line %q in:\n%s", what, line, out)
}

// TestHostileNamesPrintEscaped: status, show, diff, log, undo (its
// conflicts too), redo and verify print a name holding escape sequences
// and one holding a newline quoted, as git does, with no control byte on
// stdout or stderr.
func TestHostileNamesPrintEscaped(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("Windows file names cannot hold control characters")
	}
	e := newStoreEnv(t)
	e.writeBytes("a.txt", []byte("a\n"))
	before := strings.TrimSpace(e.ok("snap", "-m", "make \x1b[2J names").stdout)
	e.writeBytes(evilName, []byte("red\n"))
	e.writeBytes(nlName, []byte("nl\n"))

	r := e.ok("status")
	r.check(t, "status")
	wantLine(t, "status", r.stdout, "A "+evilQuoted)
	wantLine(t, "status", r.stdout, "A "+nlQuoted)

	after := strings.TrimSpace(e.ok("end").stdout)
	r = e.ok("show", after)
	r.check(t, "show")
	if !strings.Contains(r.stdout, "  "+evilQuoted+"\n") || !strings.Contains(r.stdout, "  "+nlQuoted+"\n") {
		t.Errorf("show lists:\n%s\nwant %s and %s", r.stdout, evilQuoted, nlQuoted)
	}
	r = e.ok("log")
	r.check(t, "log")
	if !strings.Contains(r.stdout, `make \033[2J names`) {
		t.Errorf("log shows the message as:\n%s\nwant its escape escaped", r.stdout)
	}

	r = e.ok("diff", before, after)
	r.check(t, "diff")
	wantLine(t, "diff", r.stdout, `diff --turnback "a/evil\033[2J\033[31mRED.txt" "b/evil\033[2J\033[31mRED.txt"`)
	wantLine(t, "diff", r.stdout, `+++ "b/evil\033[2J\033[31mRED.txt"`)
	wantLine(t, "diff", r.stdout, `diff --turnback "a/two\nlines.txt" "b/two\nlines.txt"`)

	// The user edits the evil file: undo lists it as a conflict.
	e.writeBytes(evilName, []byte("user\n"))
	r = e.run("undo")
	if r.code != exitConflict {
		t.Fatalf("undo over an edit: want exit 3\n%v", r)
	}
	r.check(t, "undo (conflict)")
	if !strings.Contains(r.stderr, "  "+evilQuoted+": ") {
		t.Errorf("undo conflict lists:\n%s\nwant %s", r.stderr, evilQuoted)
	}
	r = e.ok("undo", "--force")
	r.check(t, "undo --force")
	wantLine(t, "undo --force", r.stdout, "  D "+evilQuoted)
	wantLine(t, "undo --force", r.stdout, "  D "+nlQuoted)
	if !strings.Contains(r.stdout, "  overwrote "+evilQuoted+" (") {
		t.Errorf("undo --force says:\n%s\nwant it to name %s as overwritten", r.stdout, evilQuoted)
	}
	r = e.ok("redo")
	r.check(t, "redo")
	wantLine(t, "redo", r.stdout, "  A "+evilQuoted)
	r = e.ok("verify")
	r.check(t, "verify")

	// An error naming such a path: a hook whose folder does not exist.
	r = e.run("restore", "\x1b[2J")
	if r.code != exitError {
		t.Errorf("restore of a bad id: want exit 1\n%v", r)
	}
	r.check(t, "restore error")
}

// TestNonUTF8NameJSONRoundTrip: names that are not valid UTF-8 (two of
// them that look the same once made valid) come back exactly from
// status, show, diff and undo --json through path_bytes.
func TestNonUTF8NameJSONRoundTrip(t *testing.T) {
	t.Parallel()
	skipNonUTF8Names(t)
	e := newStoreEnv(t)
	names := []string{"caf\xe9-\xff.bin", "caf\xe8-\xff.bin"}
	e.writeBytes("plain.txt", []byte("p\n"))
	before := strings.TrimSpace(e.ok("snap").stdout)
	for _, n := range names {
		e.writeBytes(n, []byte(n))
	}
	decode := func(what, b64 string) string {
		t.Helper()
		raw, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			t.Fatalf("%s: path_bytes %q: %v", what, b64, err)
		}
		if _, err := os.Lstat(filepath.Join(e.dir, string(raw))); err != nil {
			t.Errorf("%s: path_bytes names %q, not on disk: %v", what, raw, err)
		}
		return string(raw)
	}
	same := func(what string, got []string) {
		t.Helper()
		sort.Strings(got)
		want := append([]string(nil), names...)
		sort.Strings(want)
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: names %q; want %q", what, got, want)
		}
	}

	var st struct {
		Changes []struct {
			Path      string `json:"path"`
			PathBytes string `json:"path_bytes"`
		} `json:"changes"`
	}
	cliOneJSON(t, e.ok("--json", "status").stdout, &st)
	var got []string
	for _, c := range st.Changes {
		if c.PathBytes == "" {
			t.Errorf("status --json: %q has no path_bytes", c.Path)
			continue
		}
		if !strings.Contains(c.Path, "\uFFFD") {
			t.Errorf("status --json: path %q is not the display form", c.Path)
		}
		got = append(got, decode("status", c.PathBytes))
	}
	same("status --json", got)

	after := strings.TrimSpace(e.ok("end").stdout)
	var show struct {
		Entries []struct {
			Path      string `json:"path"`
			PathBytes string `json:"path_bytes"`
		} `json:"entries"`
	}
	cliOneJSON(t, e.ok("--json", "show", after).stdout, &show)
	got = nil
	for _, en := range show.Entries {
		if en.Path == "plain.txt" {
			if en.PathBytes != "" {
				t.Errorf("show --json: plain.txt has path_bytes %q", en.PathBytes)
			}
			continue
		}
		got = append(got, decode("show", en.PathBytes))
	}
	same("show --json", got)

	var diff struct {
		Files []struct {
			PathBytes string `json:"path_bytes"`
		} `json:"files"`
	}
	cliOneJSON(t, e.ok("--json", "diff").stdout, &diff)
	if len(diff.Files) != 0 {
		t.Errorf("diff --json right after end: %+v; want no files", diff.Files)
	}

	r := e.ok("--json", "undo")
	var undo struct {
		Deleted      []string  `json:"deleted"`
		DeletedBytes []*string `json:"deleted_bytes"`
	}
	cliOneJSON(t, r.stdout, &undo)
	if len(undo.DeletedBytes) != len(undo.Deleted) || len(undo.Deleted) != 2 {
		t.Fatalf("undo --json: deleted %q, deleted_bytes %v; want two of each\n%s", undo.Deleted, undo.DeletedBytes, r.stdout)
	}
	got = nil
	for i, b := range undo.DeletedBytes {
		if b == nil {
			t.Fatalf("undo --json: deleted_bytes[%d] is null for %q", i, undo.Deleted[i])
		}
		raw, err := base64.StdEncoding.DecodeString(*b)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(raw))
		if _, err := os.Lstat(filepath.Join(e.dir, string(raw))); !os.IsNotExist(err) {
			t.Errorf("undo deleted %q, yet it is on disk (%v)", raw, err)
		}
	}
	same("undo --json deleted_bytes", got)
	if strings.Contains(r.stdout, "restored_bytes") || strings.Contains(r.stdout, "created_bytes") {
		t.Errorf("undo --json has a _bytes list for a list of valid names:\n%s", r.stdout)
	}

	// redo brings them back byte for byte; diff --json of the turn names
	// them exactly.
	r = e.ok("--json", "redo")
	var redo struct {
		CreatedBytes []*string `json:"created_bytes"`
	}
	cliOneJSON(t, r.stdout, &redo)
	if len(redo.CreatedBytes) != 2 {
		t.Fatalf("redo --json: created_bytes %v\n%s", redo.CreatedBytes, r.stdout)
	}
	for _, n := range names {
		if got := e.read(n); !bytes.Equal(got, []byte(n)) {
			t.Errorf("after redo %q holds %q", n, got)
		}
	}
	cliOneJSON(t, e.ok("--json", "diff", before).stdout, &diff)
	got = nil
	for _, f := range diff.Files {
		got = append(got, decode("diff", f.PathBytes))
	}
	same("diff --json", got)
}

// TestNonUTF8WorkTree: a work tree whose path is not valid UTF-8 prints
// quoted in info and comes back exactly from info --json.
func TestNonUTF8WorkTree(t *testing.T) {
	t.Parallel()
	skipNonUTF8Names(t)
	e := newStoreEnv(t)
	e.dir = filepath.Join(e.base, "w\xff\x1b[2J")
	if err := os.Mkdir(e.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	e.writeBytes("a.txt", []byte("a\n"))
	e.ok("snap")
	r := e.ok("info")
	r.check(t, "info")
	wantLine(t, "info", r.stdout, "work tree:  "+termout.QuotePath(e.dir))
	var doc struct {
		WorkTree      string `json:"work_tree"`
		WorkTreeBytes string `json:"work_tree_bytes"`
	}
	cliOneJSON(t, e.ok("--json", "info").stdout, &doc)
	raw, err := base64.StdEncoding.DecodeString(doc.WorkTreeBytes)
	if err != nil || string(raw) != e.dir {
		t.Errorf("info --json: work_tree_bytes %q (%v) decodes to %q; want %q", doc.WorkTreeBytes, err, raw, e.dir)
	}
}

// skipNonUTF8Names skips where file names must be valid Unicode (APFS on
// macOS, NTFS on Windows).
func skipNonUTF8Names(t *testing.T) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("this file system requires names in Unicode")
	}
}
