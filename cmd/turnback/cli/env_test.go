package cli

// The one harness of the command-line tests: a user with a private HOME
// and XDG_DATA_HOME, a work tree (and, for some tests, a store passed as
// --store), running turnback and reading its exit code, stdout and
// stderr.
//
// A command runs either as the built binary (testBinary, built once per
// test process), as a user runs it, or in-process (cliEnv.inProcess):
// execute with the environment, working directory and stdin of the
// command given explicitly, which saves a process start per command. The
// in-process mode honours TURNBACK_* variables, the working directory and
// stdin, but not HOME and XDG_DATA_HOME: the library reads those from the
// test process itself (the default store location, the home directory
// guard), and a command forwarded to a watch daemon carries the process's
// environment, not the command's. It is therefore used only by tests whose
// every command names its store (--store), is never killed or crashed and
// never meets a daemon, and whose point is not the process itself: it
// saves most of the cost of a short command. Users are the tests that
// call newInProcessEnv or set inProcess, some only for their many error
// rows (TestTurnRefHostile). Every other test runs the binary.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/turnback/turnback/cmd/turnback/diag"
	"github.com/turnback/turnback/manifest/treetest"
)

// cliInheritedEnv is the test process's environment minus everything
// that steers turnback or names a home or a project (computed once).
var cliInheritedEnv = sync.OnceValue(func() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "TURNBACK_"), k == "HOME", k == "XDG_DATA_HOME",
			k == "CLAUDE_PROJECT_DIR", k == "GEMINI_PROJECT_DIR", k == "QWEN_PROJECT_DIR", k == "CURSOR_PROJECT_DIR",
			k == "CODEX_HOME", k == "COPILOT_HOME":
			continue
		}
		env = append(env, kv)
	}
	return env
})

// cliEnviron is the environment of a command: the inherited one, HOME and
// XDG_DATA_HOME, then extra (later entries win, as in os/exec).
func cliEnviron(home, xdg string, extra ...string) []string {
	inherited := cliInheritedEnv()
	env := make([]string, 0, len(inherited)+2+len(extra))
	env = append(env, inherited...)
	env = append(env, "HOME="+home, "XDG_DATA_HOME="+xdg)
	return append(env, extra...)
}

// cliResult is one run of a command.
type cliResult struct {
	args           []string
	stdout, stderr string
	code           int
	maxRSSKiB      int64 // peak resident set of the process (Linux: KiB; 0 in-process)
}

func (r cliResult) String() string {
	return fmt.Sprintf("turnback %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

// cliWait runs cmd (whose Env and Dir the caller set) with stdin and
// returns what it did; a process that did not exit (killed, not started)
// fails the test.
func cliWait(t testing.TB, cmd *exec.Cmd, stdin []byte, args []string) cliResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return cliOutcome(t, cmd, args, err, stdout.String(), stderr.String())
}

// cliOutcome is what the finished cmd did, given its error from Run or
// Wait and its output.
func cliOutcome(t testing.TB, cmd *exec.Cmd, args []string, err error, stdout, stderr string) cliResult {
	t.Helper()
	r := cliResult{args: args, stdout: stdout, stderr: stderr}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.Exited():
		r.code = ee.ExitCode()
	default:
		t.Fatalf("turnback %s: %v\nstderr:\n%s", strings.Join(args, " "), err, stderr)
	}
	r.maxRSSKiB = childMaxRSS(cmd.ProcessState)
	// rusage's maxrss of a child started by vfork counts the parent's
	// memory before exec; the process's own high-water mark, when it
	// reports one (TURNBACK_TEST_PEAK_RSS), is the true figure.
	if i := strings.LastIndex(r.stderr, diag.PeakRSSLine); i >= 0 {
		var kb int64
		if _, err := fmt.Sscanf(r.stderr[i+len(diag.PeakRSSLine):], "%d", &kb); err == nil {
			r.maxRSSKiB = kb
		}
	}
	return r
}

// cliProc is a command started in the background: its output can be
// read while it runs.
type cliProc struct {
	t              testing.TB
	cmd            *exec.Cmd
	args           []string
	stdout, stderr syncBuffer
}

// start starts a command on the work tree (and store) of e, with stdin
// empty, and does not wait for it.
func (e *cliEnv) start(args ...string) *cliProc {
	e.t.Helper()
	p := &cliProc{t: e.t, cmd: e.command(args...)}
	p.args = p.cmd.Args[1:]
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// wait waits for the command to exit and returns what it did.
func (p *cliProc) wait() cliResult {
	p.t.Helper()
	err := p.cmd.Wait()
	return cliOutcome(p.t, p.cmd, p.args, err, p.stdout.String(), p.stderr.String())
}

// syncBuffer is a bytes.Buffer that a test may read while a process
// writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// cliEnv is one user of turnback on private temporary folders.
type cliEnv struct {
	t     testing.TB
	bin   string // the binary; "" with inProcess
	base  string // holds home, xdg and the work tree (canonical path)
	home  string
	xdg   string
	dir   string   // the work tree
	store string   // passed as --store when set
	extra []string // more environment, KEY=VALUE (later entries win)

	// wd is where run starts commands, which it gives "-C dir" (and
	// "--store store"); with inDir it starts them in dir without -C, as a
	// user's shell would (the hook tests).
	wd    string
	inDir bool
	// autoWatch leaves TURNBACK_AUTO_WATCH unset (a command may then start
	// a watch daemon); otherwise it is 0.
	autoWatch bool
	// inProcess runs commands in this process (see the file comment).
	inProcess bool
	// timeout bounds each command (0: none).
	timeout time.Duration
}

// newCLI makes the folders of a user (base/home, base/xdg) and a work tree
// base/work (work names it); commands run from base with -C base/work. Directories the test
// made unreadable are made writable again before the temporary folder is
// removed.
func newCLI(t testing.TB, work string) *cliEnv {
	t.Helper()
	base := t.TempDir()
	if real, err := filepath.EvalSymlinks(base); err == nil {
		base = real // the paths turnback prints and records are canonical
	}
	// Runs before TempDir's removal: tests set restrictive modes.
	t.Cleanup(func() { cliUnlock(base) })
	e := &cliEnv{t: t, bin: testBinary(t), base: base, home: filepath.Join(base, "home"), xdg: filepath.Join(base, "xdg"),
		dir: filepath.Join(base, work), wd: base, timeout: time.Minute}
	for _, d := range []string{e.home, e.xdg, e.dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func cliUnlock(root string) {
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o755)
		}
		return nil
	})
}

// environ is the environment of e's commands.
func (e *cliEnv) environ() []string {
	extra := e.extra
	if !e.autoWatch {
		// No automatic watch daemon (autowatch_test.go covers it); e.extra
		// may still set it.
		extra = append([]string{"TURNBACK_AUTO_WATCH=0"}, extra...)
	}
	return cliEnviron(e.home, e.xdg, extra...)
}

// exec runs exactly args in the working directory wd (e.wd, or dir with
// inDir, if empty) with stdin.
func (e *cliEnv) exec(wd string, stdin []byte, args ...string) cliResult {
	e.t.Helper()
	if wd == "" {
		wd = e.workDir()
	}
	ctx := context.Background()
	if e.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.timeout)
		defer cancel()
	}
	if e.inProcess {
		return e.execHere(ctx, wd, stdin, args)
	}
	cmd := exec.CommandContext(ctx, e.bin, args...)
	cmd.Dir, cmd.Env = wd, e.environ()
	return cliWait(e.t, cmd, stdin, args)
}

// execHere runs the command in this process, with the environment, working
// directory and stdin given to it instead of the process's own.
func (e *cliEnv) execHere(ctx context.Context, wd string, stdin []byte, args []string) cliResult {
	env := map[string]string{}
	for _, kv := range e.environ() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	var stdout, stderr bytes.Buffer
	g := &globals{stdout: &stdout, stderr: &stderr, args: args, getenv: func(k string) string { return env[k] },
		cwd: wd, stdin: bytes.NewReader(stdin)}
	code := execute(ctx, g)
	return cliResult{args: args, stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// command prepares the binary to run a command on the work tree (and
// store) of e, for tests that start, signal or wait for it themselves.
func (e *cliEnv) command(args ...string) *exec.Cmd {
	cmd := exec.Command(e.bin, append(e.flags(), args...)...)
	cmd.Dir, cmd.Env = e.workDir(), e.environ()
	return cmd
}

// workDir is where run starts commands.
func (e *cliEnv) workDir() string {
	if e.inDir {
		return e.dir
	}
	return e.wd
}

// flags are what run puts before a command's arguments.
func (e *cliEnv) flags() []string {
	if e.inDir {
		return nil
	}
	f := []string{"-C", e.dir}
	if e.store != "" {
		f = append(f, "--store", e.store)
	}
	return f
}

// run runs a command on the work tree (and store) of e.
func (e *cliEnv) run(args ...string) cliResult {
	e.t.Helper()
	return e.exec("", nil, append(e.flags(), args...)...)
}

// expect runs a command on the work tree and fails the test unless it
// exits with code.
func (e *cliEnv) expect(code int, args ...string) cliResult {
	e.t.Helper()
	r := e.run(args...)
	if r.code != code {
		e.t.Fatalf("want exit %d, got %v", code, r)
	}
	return r
}

// ok runs a command on the work tree and fails the test unless it exits 0.
func (e *cliEnv) ok(args ...string) cliResult {
	e.t.Helper()
	return e.expect(0, args...)
}

// okJSON runs a command with --json, wants exit 0 and decodes its one
// JSON document into v.
func (e *cliEnv) okJSON(v any, args ...string) cliResult {
	e.t.Helper()
	r := e.ok(append([]string{"--json"}, args...)...)
	cliOneJSON(e.t, r.stdout, v)
	return r
}

// cliOneJSON decodes s, which must be exactly one JSON document, into v.
func cliOneJSON(t testing.TB, s string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("stdout is not a JSON document: %v\n%s", err, s)
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		t.Fatalf("stdout holds more than one JSON document (%v):\n%s", err, s)
	}
}

// Work tree edits (slash paths relative to the work tree).

func (e *cliEnv) path(rel string) string { return filepath.Join(e.dir, filepath.FromSlash(rel)) }

// write writes a file of the work tree (mode 0644), making its parents.
func (e *cliEnv) write(rel, data string) {
	e.t.Helper()
	treetest.Put(e.t, e.dir, rel, data)
}

func (e *cliEnv) read(rel string) []byte {
	e.t.Helper()
	data, err := os.ReadFile(e.path(rel))
	if err != nil {
		e.t.Fatal(err)
	}
	return data
}

// rm removes a path of the work tree and everything below it.
func (e *cliEnv) rm(rel string) {
	e.t.Helper()
	if err := os.RemoveAll(e.path(rel)); err != nil {
		e.t.Fatal(err)
	}
}

// remove removes one file or empty directory of the work tree, which must
// exist.
func (e *cliEnv) remove(rel string) {
	e.t.Helper()
	if err := os.Remove(e.path(rel)); err != nil {
		e.t.Fatal(err)
	}
}

func (e *cliEnv) mv(from, to string) {
	e.t.Helper()
	if err := os.MkdirAll(filepath.Dir(e.path(to)), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.Rename(e.path(from), e.path(to)); err != nil {
		e.t.Fatal(err)
	}
}

func (e *cliEnv) chmod(rel string, m fs.FileMode) {
	e.t.Helper()
	if err := os.Chmod(e.path(rel), m); err != nil {
		e.t.Fatal(err)
	}
}

func (e *cliEnv) link(target, rel string) {
	e.t.Helper()
	if err := os.MkdirAll(filepath.Dir(e.path(rel)), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.Symlink(target, e.path(rel)); err != nil {
		e.t.Fatal(err)
	}
}

func (e *cliEnv) mkdir(rel string) {
	e.t.Helper()
	if err := os.MkdirAll(e.path(rel), 0o755); err != nil {
		e.t.Fatal(err)
	}
}

// cliWriteFile writes name (mode 0644), making its parents.
func cliWriteFile(t testing.TB, name string, data []byte) {
	t.Helper()
	treetest.PutPath(t, name, string(data))
}

// writeBytes is write for binary content.
func (e *cliEnv) writeBytes(rel string, data []byte) {
	e.t.Helper()
	treetest.Put(e.t, e.dir, rel, string(data))
}

// The three ways the tests set a user up.

// newStoreEnv: commands name the store, base/store (--store), and run
// with -C work from base.
func newStoreEnv(t testing.TB) *cliEnv {
	t.Helper()
	e := newCLI(t, "work")
	e.store = filepath.Join(e.base, "store")
	e.timeout = 0 // gc of a long history on a busy disk takes what it takes
	return e
}

// newInProcessEnv is newStoreEnv whose commands run in this process (see
// the file comment): every command names its store, none is killed, none
// starts a daemon.
func newInProcessEnv(t testing.TB) *cliEnv {
	t.Helper()
	e := newStoreEnv(t)
	e.inProcess = true
	return e
}

// setup is e for the commands that only set a test up: in-process when
// they name their store and start no daemon (see the file comment), else
// e itself.
func (e *cliEnv) setup() *cliEnv {
	if e.store == "" || e.inDir || e.autoWatch {
		return e
	}
	c := *e
	c.inProcess = true
	return &c
}

// newUndoEnv: the store is in its default location under XDG_DATA_HOME;
// commands run with -C work from HOME, and TURNBACK_AUTO_WATCH is left
// unset (what a user who never set it gets).
func newUndoEnv(t testing.TB) *cliEnv {
	t.Helper()
	e := newCLI(t, "work")
	e.wd, e.autoWatch = e.home, true
	return e
}

// newDirEnv: a work tree base/work in which commands run without -C,
// from the folder itself, as a user's shell runs them; no timeout. The
// store is in its default location unless a command names one.
func newDirEnv(t testing.TB, work string) *cliEnv {
	t.Helper()
	e := newCLI(t, work)
	e.inDir, e.timeout = true, 0
	return e
}

// with is a copy of e whose commands get extra environment as well
// (later entries win).
func (e *cliEnv) with(extra ...string) *cliEnv {
	c := *e
	c.extra = append(append([]string(nil), e.extra...), extra...)
	return &c
}

// newBinEnv: a user whose commands run exactly the arguments a test
// gives (exec, execOut), from base, with automatic watch daemons as a
// user gets them and a two-minute bound. For the daemon tests.
func newBinEnv(t testing.TB) *cliEnv {
	t.Helper()
	e := newCLI(t, "wt")
	e.autoWatch, e.timeout = true, 2*time.Minute
	return e
}

// setenv sets k=v for e's commands and for the test process, whose
// in-process calls may read it too; the test must not be parallel.
func (e *cliEnv) setenv(k, v string) {
	e.t.Setenv(k, v)
	e.extra = append(e.extra, k+"="+v)
}

// execCommand prepares the binary to run exactly args from base, for
// tests that start, signal or wait for it themselves.
func (e *cliEnv) execCommand(args ...string) *exec.Cmd {
	return e.execCommandContext(context.Background(), args...)
}

// execCommandContext is execCommand killed when ctx is done.
func (e *cliEnv) execCommandContext(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, e.bin, args...)
	cmd.Dir, cmd.Env = e.workDir(), e.environ()
	return cmd
}

// execOut runs exactly args with stdin and returns stdout, stderr and
// the exit code, for tests that check them one by one.
func (e *cliEnv) execOut(stdin string, args ...string) (stdout, stderr string, code int) {
	e.t.Helper()
	r := e.exec("", []byte(stdin), args...)
	return r.stdout, r.stderr, r.code
}

// snapStatsDoc is the --json document of snap with its statistics.
type snapStatsDoc struct {
	Snapshot string `json:"snapshot"`
	Session  string `json:"session"`
	Turn     int    `json:"turn"`
	Files    int64  `json:"files"`
	Bytes    int64  `json:"bytes"`
	Stats    struct {
		Files       int64 `json:"files"`
		Bytes       int64 `json:"bytes"`
		HashedFiles int64 `json:"hashed_files"`
		HashedBytes int64 `json:"hashed_bytes"`
		NewBlobs    int64 `json:"new_blobs"`
		NewBytes    int64 `json:"new_bytes"`
		Uncaptured  []any `json:"uncaptured"`
		Problems    []any `json:"problems"`
	} `json:"stats"`
}

// snapJSON runs a command with --json, wants exit 0 and decodes its
// snap document.
func (e *cliEnv) snapJSON(args ...string) snapStatsDoc {
	e.t.Helper()
	var d snapStatsDoc
	e.okJSON(&d, args...)
	return d
}

// newHookEnv: a project folder base/my-project in which commands run
// without -C, the folder found by the current directory as a user's shell
// (or an agent) finds it; the store is in its default location.
func newHookEnv(t testing.TB) *cliEnv {
	t.Helper()
	e := newCLI(t, "my-project")
	e.inDir = true
	return e
}
