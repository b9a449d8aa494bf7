package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback/cas/s3/s3test"
	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
)

// applyKillWorld is a's two turns pushed, b cloned at the first with the
// second pulled: pull --apply is what is left to run.
func applyKillWorld(t *testing.T, srv *s3test.Server, k int) (b *cliEnv, before, after treetest.Tree) {
	t.Helper()
	url := fmt.Sprintf("s3://tb-apply-kill/k%d", k)
	a := remoteEnv(t, srv, fmt.Sprintf("a%d", k))
	if k == 0 {
		a.ok("remote", "set", url, "--create")
	} else {
		a.ok("remote", "set", url)
	}
	a.write("f.txt", "one\n")
	a.write("gone.txt", "gone\n")
	a.mkdir("d")
	a.write("d/keep.txt", "keep\n")
	a.ok("snap")
	a.write("f.txt", "two\n")
	a.ok("end")
	a.ok("push")
	b = remoteClone(t, srv, url, "default")
	a.ok("snap")
	a.write("f.txt", "three\n")
	a.rm("gone.txt")
	a.mkdir("d/e")
	a.write("d/e/new.txt", "new\n")
	a.write("d/keep.txt", "kept, changed\n")
	a.link("f.txt", "ln")
	a.ok("end")
	a.ok("push")
	b.ok("pull")
	before, _, err := crashScan(b.dir)
	if err != nil {
		t.Fatal(err)
	}
	after, _, err = crashScan(a.dir)
	if err != nil {
		t.Fatal(err)
	}
	return b, before, after
}

// TestRemoteCLIPullApplyKilled kills pull --apply (kill -9) at each of
// its restore steps: the next command (or recover --rollback) finishes
// or undoes it, leaving the folder exactly before (then pull --apply
// works) or exactly after, with no staging file, and verify passes.
func TestRemoteCLIPullApplyKilled(t *testing.T) {
	testtier.Slow(t)
	t.Parallel()
	crashSkipNonUnix(t)
	srv := s3test.Start(t)
	// One world for every kill: pull --apply reads the remote and writes
	// only b's folders, which each kill starts from a copy of.
	b, before, after := applyKillWorld(t, srv, 0)
	pristine := t.TempDir()
	b.save(pristine)
	b.extra = append(b.extra, "TURNBACK_TEST_TRACE=1")
	r := b.ok("pull", "--apply")
	var steps []string
	for _, line := range strings.Split(r.stderr, "\n") {
		if strings.HasPrefix(line, "step ") {
			steps = append(steps, line)
		}
	}
	if len(steps) < 5 {
		t.Fatalf("pull --apply traced %d steps:\n%s", len(steps), r.stderr)
	}
	if got, _, _ := crashScan(b.dir); len(crashDiff(got, after)) != 0 {
		t.Fatalf("a complete apply: %q", crashDiff(got, after))
	}
	for i := 1; i <= 2*len(steps); i++ {
		k, rollback := (i-1)%len(steps)+1, i > len(steps)
		t.Run(fmt.Sprintf("%s_rollback=%v", strings.ReplaceAll(steps[k-1], " ", "_"), rollback), func(t *testing.T) {
			b := &cliEnv{t: t, bin: b.bin, base: b.base, home: b.home, xdg: b.xdg, dir: b.dir, wd: b.wd, timeout: b.timeout,
				extra: srv.Env()} // as remoteEnv makes it: no trace
			b.reset(pristine)
			cmd := b.command("pull", "--apply")
			cmd.Env = append(cmd.Env, fmt.Sprintf("TURNBACK_TEST_CRASH_AT=%d", k))
			if out, err := cmd.CombinedOutput(); err == nil {
				t.Fatalf("pull --apply was not killed at step %d:\n%s", k, out)
			}
			if rollback {
				r := b.run("recover", "--rollback")
				finished := r.code != 0 && strings.Contains(r.stderr, "nothing to roll back: the interrupted undo, redo or restore had recorded its result")
				if r.code != 0 && !finished {
					t.Fatalf("recover --rollback: %s", r)
				}
				got, _, err := crashScan(b.dir)
				if err != nil {
					t.Fatal(err)
				}
				if finished && len(crashDiff(got, after)) != 0 {
					t.Fatalf("recover --rollback said the apply was finished: %s\nvs after %q", r, crashDiff(got, after))
				}
				if !finished && len(crashDiff(got, before)) != 0 {
					t.Fatalf("recover --rollback: %s\nvs before %q", r, crashDiff(got, before))
				}
			}
			b.ok("status") // the next command recovers first
			got, staging, err := crashScan(b.dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(staging) > 0 {
				t.Fatalf("staging files left: %q", staging)
			}
			b.ok("verify")
			switch {
			case len(crashDiff(got, before)) == 0:
				b.ok("pull", "--apply")
				if got, _, _ := crashScan(b.dir); len(crashDiff(got, after)) != 0 {
					t.Fatalf("apply after the crash: %q", crashDiff(got, after))
				}
			case len(crashDiff(got, after)) == 0:
				if r := b.ok("status"); !strings.HasPrefix(r.stdout, "no changes since ") {
					t.Fatalf("status after a finished apply: %s", r)
				}
			default:
				t.Fatalf("after the crash the folder is neither before nor after:\nvs before %q\nvs after %q",
					crashDiff(got, before), crashDiff(got, after))
			}
		})
	}
}

// save copies e's work tree, home and data directory into dir.
func (e *cliEnv) save(dir string) {
	e.t.Helper()
	for _, p := range [][2]string{{e.dir, "work"}, {e.home, "home"}, {e.xdg, "xdg"}} {
		if err := treetest.Copy(p[0], filepath.Join(dir, p[1])); err != nil {
			e.t.Fatal(err)
		}
	}
}

// reset makes e's work tree, home and data directory the copies save
// put in dir.
func (e *cliEnv) reset(dir string) {
	e.t.Helper()
	for _, p := range [][2]string{{e.dir, "work"}, {e.home, "home"}, {e.xdg, "xdg"}} {
		if err := os.RemoveAll(p[0]); err != nil {
			e.t.Fatal(err)
		}
		if err := treetest.Copy(filepath.Join(dir, p[1]), p[0]); err != nil {
			e.t.Fatal(err)
		}
	}
}
