package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/turnback/turnback/cmd/turnback/full"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/zeebo/blake3"
)

func TestMain(m *testing.M) {
	// Fixed permission bits for files the tests create, so snapshot ids
	// and golden listings do not depend on the caller's umask. The
	// binary the tests run inherits it.
	setTestUmask()
	// No test starts a watch daemon it did not ask for (autowatch_test.go
	// sets the variable itself).
	os.Setenv("TURNBACK_AUTO_WATCH", "0")
	// Commands run in this process have turnback-full's commands too.
	extras = full.Commands
	code := m.Run()
	if testBinDir != "" {
		os.RemoveAll(testBinDir)
	}
	os.Exit(code)
}

// scriptTurnback is the scripts' turnback command: the built binary
// (testBinary), as every other test runs it.
func scriptTurnback(bin string) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		err := ts.Exec(bin, args...)
		if err != nil {
			ts.Logf("[%v]", err)
		}
		switch {
		case err != nil && !neg:
			ts.Fatalf("unexpected command failure")
		case err == nil && neg:
			ts.Fatalf("unexpected command success")
		}
	}
}

// scriptExitCode is "exitcode N turnback ARGS...": it runs the built
// binary and succeeds when its exit code is N; its output passes through.
func scriptExitCode(bin string) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) < 2 || args[1] != "turnback" {
			ts.Fatalf("usage: exitcode N turnback [ARGS...]")
		}
		want, err := strconv.Atoi(args[0])
		if err != nil {
			ts.Fatalf("exitcode: bad code %s", args[0])
		}
		got := 0
		var ee *exec.ExitError
		if err := ts.Exec(bin, args[2:]...); errors.As(err, &ee) {
			got = ee.ExitCode()
		} else if err != nil {
			ts.Fatalf("exitcode: %v", err)
		}
		if got != want {
			ts.Fatalf("exitcode: turnback exited %d, want %d", got, want)
		}
	}
}

// scriptLongName is a 255-byte file name (the usual NAME_MAX).
var scriptLongName = strings.Repeat("n", 251) + ".txt"

func TestScripts(t *testing.T) {
	bin := testBinary(t)
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("..", "testdata", "script"),
		// Report every failing section of a script, not only the first.
		ContinueOnError: true,
		Setup: func(env *testscript.Env) error {
			work := env.Getenv("WORK")
			for _, d := range []string{"home", "xdg"} {
				if err := os.MkdirAll(filepath.Join(work, d), 0o755); err != nil {
					return err
				}
			}
			// Nothing may touch the real home or the real data dir.
			env.Setenv("HOME", filepath.Join(work, "home"))
			env.Setenv("XDG_DATA_HOME", filepath.Join(work, "xdg"))
			for _, v := range []string{"TURNBACK_STORE", "TURNBACK_SESSION", "TURNBACK_SIZE_LIMIT",
				"TURNBACK_LARGE_DIR_FILES", "TURNBACK_LOCK_WAIT"} {
				env.Setenv(v, "")
			}
			env.Setenv("TURNBACK_AUTO_WATCH", "0")
			env.Setenv("LONGNAME", scriptLongName)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"turnback":  scriptTurnback(bin),
			"exitcode":  scriptExitCode(bin),
			"sleep":     cmdSleep,
			"listing":   cmdListing,
			"chtimes":   cmdChtimes,
			"mkfiles":   cmdMkfiles,
			"genbytes":  cmdGenbytes,
			"perm":      cmdPerm,
			"b3sum":     cmdB3sum,
			"stdoutenv": cmdStdoutEnv,
			"json1":     cmdJSON1,
			"jsonv":     cmdJSONValue,
			"jsonenv":   cmdJSONEnv,
			"storedir":  cmdStoreDir,
			"lnsym":     cmdLnsym,
			"mkfifo":    cmdMkfifo,
			"lsdir":     cmdLsdir,
			"writefile": cmdWritefile,
		},
	})
}

// sleep DURATION
func cmdSleep(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sleep duration")
	}
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	time.Sleep(d)
}

// listing [-atime] DIR OUT writes a recursive listing of DIR (every
// entry, ignored directories included): path, type and permission bits,
// size, mtime in ns, and the SHA-256 of a file's content or a symlink's
// target; with -atime (Linux only) also the access time of files and
// directories. The listing reads nothing in a way that changes an access
// time. OUT must lie outside DIR.
func cmdListing(ts *testscript.TestScript, neg bool, args []string) {
	atime := len(args) > 0 && args[0] == "-atime"
	if atime {
		args = args[1:]
	}
	if neg || len(args) != 2 {
		ts.Fatalf("usage: listing [-atime] dir out")
	}
	if atime && runtime.GOOS != "linux" {
		ts.Fatalf("listing -atime: access times are compared on Linux only")
	}
	var b bytes.Buffer
	ts.Check(scriptTreeListing(&b, ts.MkAbs(args[0]), ".", atime))
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), b.Bytes(), 0o644))
}

func scriptTreeListing(b *bytes.Buffer, root, rel string, atime bool) error {
	p := filepath.Join(root, rel)
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	sum := "-"
	var names []string
	switch {
	case fi.Mode().IsRegular() || fi.IsDir():
		f, err := os.OpenFile(p, os.O_RDONLY|listNoAtime, 0)
		if err != nil {
			return err
		}
		if fi.IsDir() {
			names, err = f.Readdirnames(-1)
			sort.Strings(names)
		} else {
			h := sha256.New()
			_, err = io.Copy(h, f)
			sum = hex.EncodeToString(h.Sum(nil))
		}
		f.Close()
		if err != nil {
			return err
		}
		if at, ok := fileAtime(fi); ok && atime {
			sum += fmt.Sprintf(" atime %d", at)
		}
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		if err != nil {
			return err
		}
		sum = "-> " + target
	}
	fmt.Fprintf(b, "%q %v %o %d %d %s\n", filepath.ToSlash(rel), fi.Mode().Type(), fi.Mode().Perm(), fi.Size(), fi.ModTime().UnixNano(), sum)
	for _, n := range names {
		if err := scriptTreeListing(b, root, filepath.Join(rel, n), atime); err != nil {
			return err
		}
	}
	return nil
}

// chtimes FILE SPEC sets FILE's access and modification times: SPEC is
// another file (copy its mtime exactly) or a duration relative to now
// ("-1h").
func cmdChtimes(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: chtimes file (reffile | duration)")
	}
	var mt time.Time
	if d, err := time.ParseDuration(args[1]); err == nil {
		mt = time.Now().Add(d)
	} else {
		fi, err := os.Lstat(ts.MkAbs(args[1]))
		ts.Check(err)
		mt = fi.ModTime()
	}
	ts.Check(os.Chtimes(ts.MkAbs(args[0]), mt, mt))
}

// mkfiles N DIR creates DIR/f00000 ... with distinct small contents.
func cmdMkfiles(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: mkfiles n dir")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	ts.Check(scriptMakeFiles(ts.MkAbs(args[1]), n))
}

func scriptMakeFiles(dir string, n int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d", i)), fmt.Appendf(nil, "file %d\n", i), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// genbytes FILE N SEED writes N pseudo-random bytes (fixed by SEED).
func cmdGenbytes(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: genbytes file n seed")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	seed, err := strconv.ParseUint(args[2], 10, 64)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), scriptRandomBytes(n, seed), 0o644))
}

func scriptRandomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// perm PATH MODE checks PATH's permission bits (octal).
func cmdPerm(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: perm path mode")
	}
	want, err := strconv.ParseUint(args[1], 8, 32)
	ts.Check(err)
	fi, err := os.Lstat(ts.MkAbs(args[0]))
	ts.Check(err)
	got := uint64(fi.Mode().Perm())
	if (got == want) == neg {
		ts.Fatalf("%s has mode %04o; want %s%04o", args[0], got, map[bool]string{true: "not ", false: ""}[neg], want)
	}
}

// b3sum FILE VAR sets VAR to the BLAKE3-256 of FILE's content in hex.
func cmdB3sum(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: b3sum file var")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	sum := blake3.Sum256(data)
	ts.Setenv(args[1], hex.EncodeToString(sum[:]))
}

// stdoutenv VAR sets VAR to the last command's stdout, trimmed.
func cmdStdoutEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: stdoutenv var")
	}
	ts.Setenv(args[0], strings.TrimSpace(ts.ReadFile("stdout")))
}

// scriptDecodeOne parses data as exactly one JSON document, strictly: one
// value, then nothing but white space.
func scriptDecodeOne(data string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not a JSON document: %v\n%s", err, data)
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("more than one JSON document (next: %v, %v):\n%s", extra, err, data)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Errorf("JSON document is not an object:\n%s", data)
	}
	return v, nil
}

// json1 checks that the last command's stdout is exactly one JSON object.
func cmdJSON1(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 0 {
		ts.Fatalf("usage: json1")
	}
	_, err := scriptDecodeOne(ts.ReadFile("stdout"))
	if (err == nil) == neg {
		if neg {
			ts.Fatalf("stdout is one JSON document")
		}
		ts.Fatalf("%v", err)
	}
}

// scriptJSONLookup follows a path through a decoded document. A segment is an
// object key, an array index, or KEY=VALUE: the array element whose KEY
// is VALUE.
func scriptJSONLookup(v any, path []string) (any, error) {
	for _, seg := range path {
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[seg]
			if !ok {
				return nil, fmt.Errorf("no key %q", seg)
			}
			v = next
		case []any:
			if k, want, ok := strings.Cut(seg, "="); ok {
				found := false
				for _, el := range x {
					if m, ok := el.(map[string]any); ok && scriptJSONString(m[k]) == want {
						v, found = el, true
						break
					}
				}
				if !found {
					return nil, fmt.Errorf("no element with %s", seg)
				}
				continue
			}
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) {
				return nil, fmt.Errorf("no element %q in an array of %d", seg, len(x))
			}
			v = x[i]
		default:
			return nil, fmt.Errorf("cannot look up %q in %v", seg, v)
		}
	}
	return v, nil
}

func scriptJSONString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	}
	data, _ := json.Marshal(v)
	return string(data)
}

// jsonv SEG... WANT checks that stdout is one JSON document whose value
// at the path is WANT (strings unquoted, numbers as written, arrays and
// objects as compact JSON; a WANT in double quotes is a Go string
// literal). With !, the value must differ or be absent.
func cmdJSONValue(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: jsonv seg... want")
	}
	doc, err := scriptDecodeOne(ts.ReadFile("stdout"))
	ts.Check(err)
	path, want := args[:len(args)-1], args[len(args)-1]
	if strings.HasPrefix(want, `"`) {
		w, err := strconv.Unquote(want)
		ts.Check(err)
		want = w
	}
	v, err := scriptJSONLookup(doc, path)
	got := "<absent>"
	if err == nil {
		got = scriptJSONString(v)
	}
	if (got == want) == neg {
		if neg {
			ts.Fatalf("JSON %s is %q", strings.Join(path, " "), got)
		}
		ts.Fatalf("JSON %s is %q (%v), want %q", strings.Join(path, " "), got, err, want)
	}
}

// jsonenv VAR SEG... sets VAR to the value at the path of stdout's JSON.
func cmdJSONEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: jsonenv var seg...")
	}
	doc, err := scriptDecodeOne(ts.ReadFile("stdout"))
	ts.Check(err)
	v, err := scriptJSONLookup(doc, args[1:])
	ts.Check(err)
	ts.Setenv(args[0], scriptJSONString(v))
}

var scriptStoreName = regexp.MustCompile(`^(.+)-([0-9a-f]{16})$`)

// storedir PARENT NAME VAR checks that PARENT holds exactly one entry, a
// store directory named NAME-<16 hex digits> (mode 0700) whose worktree
// note names a directory called NAME, and sets VAR to its path.
func cmdStoreDir(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: storedir parent name var")
	}
	parent := ts.MkAbs(args[0])
	ents, err := os.ReadDir(parent)
	ts.Check(err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if len(names) != 1 {
		ts.Fatalf("%s holds %q; want one store directory", parent, names)
	}
	m := scriptStoreName.FindStringSubmatch(names[0])
	if m == nil || m[1] != args[1] {
		ts.Fatalf("store directory %q is not named %s-<16 hex digits>", names[0], args[1])
	}
	dir := filepath.Join(parent, names[0])
	fi, err := os.Stat(dir)
	ts.Check(err)
	if fi.Mode().Perm() != 0o700 {
		ts.Fatalf("store directory %s has mode %04o, want 0700", dir, fi.Mode().Perm())
	}
	ts.Setenv(args[2], dir)
}

// lnsym TARGET LINK creates a symbolic link with exactly TARGET (the
// builtin symlink command requires a relative target).
func cmdLnsym(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: lnsym target link")
	}
	if runtime.GOOS == "windows" {
		ts.Fatalf("symlinks need a Unix system")
	}
	ts.Check(os.Symlink(args[0], ts.MkAbs(args[1])))
}

// mkfifo PATH creates a named pipe (capture must skip it, never open it).
func cmdMkfifo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mkfifo path")
	}
	ts.Check(mkfifo(ts.MkAbs(args[0])))
}

// lsdir DIR prints the names in DIR, sorted, one a line (none if DIR
// does not exist).
func cmdLsdir(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: lsdir dir")
	}
	ents, err := os.ReadDir(ts.MkAbs(args[0]))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		ts.Check(err)
	}
	out := ts.Stdout() // also when empty: replaces the last command's stdout
	for _, e := range ents {
		fmt.Fprintln(out, e.Name())
	}
}

// writefile FILE "GO STRING" writes the unquoted Go string literal to
// FILE, exactly (no newline added).
func cmdWritefile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: writefile file go-string")
	}
	data, err := strconv.Unquote(args[1])
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(data), 0o644))
}
