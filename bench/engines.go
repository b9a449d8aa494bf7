//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/turnback/turnback"
)

// Op is one measured operation.
type Op struct {
	Dur      time.Duration
	MaxRSSKB int64          // peak RSS of the largest process (0: in-process)
	CPU      time.Duration  // CPU time (user+sys) the operation itself used
	Foreign  float64        // share of the machine's CPU others used meanwhile
	Procs    int            // processes started
	Info     map[string]any // engine details (files read, ids, ...)
}

// Engine is one way of capturing a tree and undoing a turn.
type Engine interface {
	Name() string
	// Available says whether the engine can run here (and why not).
	Available() (bool, string)
	// Setup binds the engine to a tree; work is a scratch directory of
	// its own, outside the tree.
	Setup(t *Tree, work string) error
	// Fresh deletes the store: the next capture is a cold one.
	Fresh() error
	// Capture captures the tree. phase is cold (into an empty store),
	// nochange, before (the turn's before-state) or turn (its after-state).
	Capture(ctx context.Context, phase string, rep int) (Op, error)
	// Undo brings the tree back to the before-state of the last turn.
	Undo(ctx context.Context, rep int) (Op, error)
	StoreDir() string
	Close() error
}

// phases of a capture.
const (
	phCold     = "cold"
	phNoChange = "nochange"
	phBefore   = "before"
	phTurn     = "turn"
)

// cpuStat reads the machine's busy CPU time from /proc/stat.
func cpuStat() time.Duration {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0
	}
	var busy int64
	for i, v := range f[1:9] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		n, _ := strconv.ParseInt(v, 10, 64)
		busy += n
	}
	return time.Duration(busy) * 10 * time.Millisecond // USER_HZ = 100
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// foreignShare is the share of the machine's CPU capacity used by other
// processes during an operation of wall time d that used own CPU itself.
func foreignShare(busy, own, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	f := float64(busy-own) / (float64(d) * float64(numCPU()))
	return max(0, min(1, f))
}

// procRun runs commands one after another as one measured operation.
type procRun struct {
	op     Op
	start  time.Time
	busy0  time.Duration
	stdout bytes.Buffer
	// wall is the sum of the commands' own wall times (measured by the
	// spawn helper, so the helper's start is not counted).
	wall    time.Duration
	floorKB int64
}

func startOp() *procRun {
	return &procRun{start: time.Now(), busy0: cpuStat()}
}

// run executes cmd under the spawn helper, adding its wall time and
// rusage to the operation.
func (p *procRun) run(cmd *exec.Cmd) error {
	var out, errb bytes.Buffer
	r, err := runMeasured(cmd, &out, &errb)
	p.op.Procs++
	p.stdout = out
	if r != nil {
		p.wall += time.Duration(r.WallNs)
		p.op.CPU += time.Duration(r.UserNs + r.SysNs)
		p.op.MaxRSSKB = max(p.op.MaxRSSKB, r.MaxRSSKB)
		p.floorKB = max(p.floorKB, r.FloorKB)
		if err == nil && r.Exit != 0 {
			err = fmt.Errorf("exit status %d", r.Exit)
		}
	}
	if err != nil {
		msg := strings.TrimSpace(errb.String())
		if len(msg) > 2000 {
			msg = msg[:2000] + "..."
		}
		return fmt.Errorf("%s: %v: %s", strings.Join(cmd.Args, " "), err, msg)
	}
	return nil
}

func (p *procRun) finish() Op {
	total := time.Since(p.start)
	p.op.Dur = p.wall
	if p.op.Procs == 0 || p.wall <= 0 {
		p.op.Dur = total
	}
	p.op.Foreign = foreignShare(cpuStat()-p.busy0, p.op.CPU, total)
	if p.op.Info == nil {
		p.op.Info = map[string]any{}
	}
	p.op.Info["rss_floor_kb"] = p.floorKB
	return p.op
}

// ---- turnback through its CLI ----

// tbCLI is the turnback CLI without a watch daemon (engine cli-nowatch):
// TURNBACK_AUTO_WATCH=0, so no command starts one and every command reads
// the tree itself, as every CLI command did before daemons started by
// themselves. tbDaemon builds on it.
type tbCLI struct {
	bin         string
	tree, store string
	env         []string
	noWatch     bool // TURNBACK_AUTO_WATCH=0
}

func newTBCLINoWatch(bin string) *tbCLI { return &tbCLI{bin: bin, noWatch: true} }

func (e *tbCLI) Name() string { return "turnback-cli-nowatch" }
func (e *tbCLI) Available() (bool, string) {
	if _, err := os.Stat(e.bin); err != nil {
		return false, "turnback binary not built"
	}
	return true, ""
}
func (e *tbCLI) Setup(t *Tree, work string) error {
	e.tree, e.store = t.Dir, filepath.Join(work, "store")
	xdg := filepath.Join(work, "xdg")
	if err := os.MkdirAll(xdg, 0o755); err != nil {
		return err
	}
	e.env = append(cleanEnv(), "XDG_DATA_HOME="+xdg)
	if e.noWatch {
		e.env = append(e.env, "TURNBACK_AUTO_WATCH=0")
	}
	return nil
}

// checkNoDaemon records, untimed, that no watch daemon served the folder
// after the step (none may: TURNBACK_AUTO_WATCH=0).
func (e *tbCLI) checkNoDaemon(ctx context.Context, op *Op) error {
	var p procRun
	if err := p.run(e.cmd(ctx, "watch", "--status")); err != nil {
		return err
	}
	var d statusDoc
	if err := json.Unmarshal(p.stdout.Bytes(), &d); err != nil {
		return fmt.Errorf("turnback watch --status: bad JSON: %v", err)
	}
	op.Info["daemon_running"] = d.PID != 0
	if d.PID != 0 {
		daemons.Lock()
		daemons.pids[d.PID] = true
		daemons.Unlock()
		return fmt.Errorf("a watch daemon (pid %d) serves the folder although TURNBACK_AUTO_WATCH=0", d.PID)
	}
	return nil
}
func (e *tbCLI) Fresh() error     { return os.RemoveAll(e.store) }
func (e *tbCLI) StoreDir() string { return e.store }
func (e *tbCLI) Close() error     { return nil }

func (e *tbCLI) cmd(ctx context.Context, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, e.bin, append([]string{"--store", e.store, "-C", e.tree, "--json"}, args...)...)
	c.Env = e.env
	c.Dir = e.tree
	return c
}

func (e *tbCLI) Capture(ctx context.Context, phase string, rep int) (Op, error) {
	args := []string{"snap", "-m", "bench " + phase}
	if phase == phTurn {
		args = []string{"end"}
	}
	p := startOp()
	err := p.run(e.cmd(ctx, args...))
	op := p.finish()
	if err != nil {
		return op, err
	}
	var doc struct {
		Snapshot string         `json:"snapshot"`
		Turn     int            `json:"turn"`
		Files    int64          `json:"files"`
		Message  string         `json:"message"`
		Stats    map[string]any `json:"stats"`
	}
	if err := json.Unmarshal(p.stdout.Bytes(), &doc); err != nil {
		return op, fmt.Errorf("turnback %s: bad JSON: %v", args[0], err)
	}
	if doc.Snapshot == "" {
		return op, fmt.Errorf("turnback %s recorded no snapshot: %s", args[0], doc.Message)
	}
	if phase == phTurn && doc.Message != "" {
		return op, fmt.Errorf("turnback end: %s", doc.Message)
	}
	mergeInfo(&op, tbStats(doc.Stats))
	op.Info["snapshot"] = doc.Snapshot
	_, watched := doc.Stats["watch"]
	op.Info["forwarded"] = watched
	return op, e.checkNoDaemon(ctx, &op)
}

func tbStats(st map[string]any) map[string]any {
	info := map[string]any{}
	for _, k := range []string{"files", "dirs", "bytes", "hashed_files", "hashed_bytes", "new_blobs", "new_bytes"} {
		if v, ok := st[k]; ok {
			info[k] = v
		}
	}
	if u, ok := st["uncaptured"].([]any); ok {
		info["uncaptured"] = len(u)
	}
	return info
}

func (e *tbCLI) Undo(ctx context.Context, rep int) (Op, error) {
	p := startOp()
	err := p.run(e.cmd(ctx, "undo"))
	op := p.finish()
	if err != nil {
		return op, err
	}
	if err := checkUndoDoc(&op, p.stdout.Bytes()); err != nil {
		return op, err
	}
	op.Info["forwarded"] = false // no daemon: checked just below
	return op, e.checkNoDaemon(ctx, &op)
}

// ---- turnback through its Go API, in process ----

type tbAPI struct {
	tree, store string
	keepOpen    bool
	repo        *turnback.Repo
	profDir     string
	memProfDir  string
	treeName    string
}

func (e *tbAPI) Name() string              { return "turnback-api" }
func (e *tbAPI) Available() (bool, string) { return true, "" }
func (e *tbAPI) Setup(t *Tree, work string) error {
	e.tree, e.store, e.treeName = t.Dir, filepath.Join(work, "store"), t.Name
	return nil
}
func (e *tbAPI) StoreDir() string { return e.store }
func (e *tbAPI) Fresh() error {
	if err := e.Close(); err != nil {
		return err
	}
	return os.RemoveAll(e.store)
}
func (e *tbAPI) Close() error {
	if e.repo == nil {
		return nil
	}
	err := e.repo.Close()
	e.repo = nil
	return err
}

// with runs fn on an open repo as one measured operation: Open and Close
// are included unless the engine keeps the repo open.
func (e *tbAPI) with(ctx context.Context, label string, fn func(r *turnback.Repo) (map[string]any, error)) (Op, error) {
	var prof *os.File
	if e.profDir != "" && label != "" {
		name := filepath.Join(e.profDir, sanitize(fmt.Sprintf("%s-%s.pprof", e.treeName, label)))
		f, err := os.Create(name)
		if err == nil && pprof.StartCPUProfile(f) == nil {
			prof = f
		} else if f != nil {
			f.Close()
		}
	}
	var mem *heapPeak
	if e.memProfDir != "" && label != "" {
		mem = startHeapPeak()
	}
	resetHWM()
	rss0 := procStatusKB("VmRSS")
	cpu0, busy0 := selfCPU(), cpuStat()
	start := time.Now()
	var info map[string]any
	err := func() error {
		if e.repo == nil {
			r, err := turnback.Open(ctx, e.tree, turnback.Options{Store: e.store})
			if err != nil {
				return err
			}
			e.repo = r
		}
		var err error
		info, err = fn(e.repo)
		if !e.keepOpen {
			if cerr := e.Close(); err == nil {
				err = cerr
			}
		}
		return err
	}()
	d := time.Since(start)
	own := selfCPU() - cpu0
	if prof != nil {
		pprof.StopCPUProfile()
		prof.Close()
	}
	op := Op{Dur: d, CPU: own, Foreign: foreignShare(cpuStat()-busy0, own, d), Info: info}
	// The harness's own memory is included: rss_before_kb is the baseline.
	mergeInfo(&op, map[string]any{"process_hwm_kb": procStatusKB("VmHWM"), "rss_before_kb": rss0})
	if mem != nil {
		name := filepath.Join(e.memProfDir, sanitize(fmt.Sprintf("%s-%s.heap.pprof", e.treeName, label)))
		peak := mem.stop(name)
		mergeInfo(&op, map[string]any{"heap_inuse_peak_bytes": peak})
	}
	return op, err
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ':' || r == ' ' {
			return '_'
		}
		return r
	}, s)
}

func snapInfo(res *turnback.SnapResult) map[string]any {
	data, _ := json.Marshal(res.Stats)
	var st map[string]any
	json.Unmarshal(data, &st)
	info := tbStats(st)
	info["snapshot"] = res.Snapshot.String()
	return info
}

func (e *tbAPI) Capture(ctx context.Context, phase string, rep int) (Op, error) {
	label := fmt.Sprintf("%s-r%d", phase, rep)
	if phase == phBefore || rep < 0 {
		label = "" // setup, not measured
	}
	return e.with(ctx, label, func(r *turnback.Repo) (map[string]any, error) {
		if phase == phTurn {
			res, err := r.End(ctx)
			if err != nil {
				return nil, err
			}
			if res.NoOpenTurn || res.Dropped {
				return nil, fmt.Errorf("turnback End: no turn recorded (no open turn: %v, dropped: %v)", res.NoOpenTurn, res.Dropped)
			}
			return snapInfo(res), nil
		}
		res, err := r.Snap(ctx, "bench "+phase)
		if err != nil {
			return nil, err
		}
		return snapInfo(res), nil
	})
}

func (e *tbAPI) Undo(ctx context.Context, rep int) (Op, error) {
	return e.with(ctx, fmt.Sprintf("undo-r%d", rep), func(r *turnback.Repo) (map[string]any, error) {
		res, err := r.Undo(ctx, 1, false)
		if err != nil {
			return nil, err
		}
		if res.Turns != 1 {
			return nil, fmt.Errorf("turnback Undo undid %d turns, want 1", res.Turns)
		}
		return map[string]any{"turns": res.Turns, "restored": len(res.Restored), "deleted": len(res.Deleted), "created": len(res.Created), "not_restorable": len(res.NotRestorable)}, nil
	})
}

// ---- shadow git, as OpenCode, Gemini CLI and Cline keep it ----

type shadowGit struct {
	gitDir, tree    string
	before          string // tree id of the last before-state
	excludeBuiltins bool
}

func (e *shadowGit) Name() string { return "shadow-git" }
func (e *shadowGit) Available() (bool, string) {
	if _, err := exec.LookPath("git"); err != nil {
		return false, "git not on PATH"
	}
	return true, ""
}
func (e *shadowGit) Setup(t *Tree, work string) error {
	e.tree, e.gitDir = t.Dir, filepath.Join(work, "shadow.git")
	return nil
}
func (e *shadowGit) Fresh() error     { e.before = ""; return os.RemoveAll(e.gitDir) }
func (e *shadowGit) StoreDir() string { return e.gitDir }
func (e *shadowGit) Close() error     { return nil }

func (e *shadowGit) Capture(ctx context.Context, phase string, rep int) (Op, error) {
	p := startOp()
	err := func() error {
		if phase == phCold {
			if err := p.run(gitCmd(ctx, e.gitDir, e.tree, "init", "-q")); err != nil {
				return err
			}
			if e.excludeBuiltins {
				var b strings.Builder
				for n := range builtinIgnored {
					b.WriteString(n + "/\n")
				}
				if err := os.WriteFile(filepath.Join(e.gitDir, "info", "exclude"), []byte(b.String()), 0o644); err != nil {
					return err
				}
			}
		}
		if err := p.run(gitCmd(ctx, e.gitDir, e.tree, "add", "-A")); err != nil {
			return err
		}
		return p.run(gitCmd(ctx, e.gitDir, e.tree, "write-tree"))
	}()
	id := strings.TrimSpace(p.stdout.String())
	op := p.finish()
	if err != nil {
		return op, err
	}
	if phase == phBefore {
		e.before = id
	}
	mergeInfo(&op, map[string]any{"tree": id})
	return op, nil
}

func (e *shadowGit) Undo(ctx context.Context, rep int) (Op, error) {
	if e.before == "" {
		return Op{}, fmt.Errorf("shadow git: no before-state recorded")
	}
	p := startOp()
	err := p.run(gitCmd(ctx, e.gitDir, e.tree, "restore", "--source="+e.before, "--staged", "--worktree", "--", "."))
	op := p.finish()
	return op, err
}

// gitFileCount is how many paths the shadow git index holds.
func (e *shadowGit) fileCount(ctx context.Context) int {
	out, err := gitCmd(ctx, e.gitDir, e.tree, "ls-files", "-z").Output()
	if err != nil {
		return -1
	}
	return bytes.Count(out, []byte{0})
}

// ---- restic ----

type resticEngine struct {
	repo, tree, cache string
	env               []string
	last, before      string
	canDelete         bool
	version           string
}

func (e *resticEngine) Name() string { return "restic" }
func (e *resticEngine) Available() (bool, string) {
	if _, err := exec.LookPath("restic"); err != nil {
		return false, "restic not on PATH"
	}
	out, err := exec.Command("restic", "version").Output()
	if err != nil {
		return false, "restic version: " + err.Error()
	}
	e.version = strings.TrimSpace(string(out))
	if m := regexp.MustCompile(`restic (\d+)\.(\d+)`).FindStringSubmatch(e.version); m != nil {
		maj, _ := strconv.Atoi(m[1])
		mn, _ := strconv.Atoi(m[2])
		e.canDelete = maj > 0 || mn >= 17 // restore --delete appeared in 0.17
	}
	return true, ""
}
func (e *resticEngine) Setup(t *Tree, work string) error {
	e.tree, e.repo, e.cache = t.Dir, filepath.Join(work, "restic-repo"), filepath.Join(work, "restic-cache")
	e.env = append(cleanEnv(), "RESTIC_PASSWORD=turnback-bench", "RESTIC_REPOSITORY="+e.repo, "RESTIC_CACHE_DIR="+e.cache)
	return nil
}
func (e *resticEngine) Fresh() error {
	e.last, e.before = "", ""
	os.RemoveAll(e.cache)
	return os.RemoveAll(e.repo)
}
func (e *resticEngine) StoreDir() string { return e.repo }
func (e *resticEngine) Close() error     { return nil }

func (e *resticEngine) cmd(ctx context.Context, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, "restic", args...)
	c.Env, c.Dir = e.env, e.tree
	return c
}

func (e *resticEngine) Capture(ctx context.Context, phase string, rep int) (Op, error) {
	p := startOp()
	err := func() error {
		if phase == phCold {
			if err := p.run(e.cmd(ctx, "init")); err != nil {
				return err
			}
		}
		args := []string{"backup", "--json", "--quiet"}
		if e.last != "" {
			args = append(args, "--parent", e.last)
		}
		return p.run(e.cmd(ctx, append(args, e.tree)...))
	}()
	op := p.finish()
	if err != nil {
		return op, err
	}
	id := ""
	for _, line := range strings.Split(p.stdout.String(), "\n") {
		var d struct {
			MessageType string `json:"message_type"`
			SnapshotID  string `json:"snapshot_id"`
		}
		if json.Unmarshal([]byte(line), &d) == nil && d.MessageType == "summary" {
			id = d.SnapshotID
		}
	}
	if id == "" {
		return op, fmt.Errorf("restic backup: no snapshot id in output")
	}
	e.last = id
	if phase == phBefore {
		e.before = id
	}
	mergeInfo(&op, map[string]any{"snapshot": id})
	return op, nil
}

func (e *resticEngine) Undo(ctx context.Context, rep int) (Op, error) {
	args := []string{"restore", e.before + ":" + e.tree, "--target", e.tree}
	if e.canDelete {
		args = append(args, "--delete")
	}
	p := startOp()
	err := p.run(e.cmd(ctx, args...))
	return p.finish(), err
}

func mergeInfo(op *Op, m map[string]any) {
	if op.Info == nil {
		op.Info = map[string]any{}
	}
	for k, v := range m {
		op.Info[k] = v
	}
}
