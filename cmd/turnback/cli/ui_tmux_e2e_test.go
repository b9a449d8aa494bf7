package cli

// turnback ui in a real terminal: tmux runs the built binary, the tests
// send keys and read the screen (capture-pane), and check the folder's
// bytes after each step. Each wait polls the screen until the text
// expected shows, with a deadline; no fixed sleeps. They run in the slow
// tier (TURNBACK_TEST_SLOW=1, as .ci/run sets it).

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/cmd/turnback/termout"
	"github.com/turnback/turnback/internal/testtier"
)

// tmuxUI is turnback ui running in a private tmux server.
type tmuxUI struct {
	t      *testing.T
	e      *cliEnv
	server string // tmux -L name: a server of its own, never the user's
	exit   string // the file the exit code is written to
}

// startUI runs turnback ui (with args) on e's folder in a 100×30 tmux
// window and waits for its first frame.
func startUI(t *testing.T, e *cliEnv, args ...string) *tmuxUI {
	t.Helper()
	testtier.Slow(t) // a real terminal: the slow tier
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (.ci/run installs it)")
	}
	u := &tmuxUI{t: t, e: e, server: fmt.Sprintf("tbui-%d-%d", os.Getpid(), time.Now().UnixNano()), exit: filepath.Join(e.base, "ui.exit")}
	var env []string
	for _, kv := range e.environ() {
		if !strings.HasPrefix(kv, "TERM=") && !strings.HasPrefix(kv, "NO_COLOR=") {
			env = append(env, termout.ShellQuote(kv))
		}
	}
	cmd := append([]string{termout.ShellQuote(e.bin)}, e.flags()...)
	for _, a := range append([]string{"ui"}, args...) {
		cmd = append(cmd, termout.ShellQuote(a))
	}
	script := filepath.Join(e.base, "ui.sh")
	body := fmt.Sprintf("#!/bin/sh\ncd %s || exit 99\nenv -i TERM=\"$TERM\" %s %s 2>%s\necho $? >%s.tmp && mv %s.tmp %s\n",
		termout.ShellQuote(e.dir), strings.Join(env, " "), strings.Join(cmd, " "), termout.ShellQuote(filepath.Join(e.base, "ui.stderr")),
		termout.ShellQuote(u.exit), termout.ShellQuote(u.exit), termout.ShellQuote(u.exit))
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", u.server, "kill-server").Run() })
	u.tmux("-f", "/dev/null", "new-session", "-d", "-s", "ui", "-x", "100", "-y", "30", script)
	u.waitFor("turnback ui")
	return u
}

func (u *tmuxUI) tmux(args ...string) string {
	u.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", u.server}, args...)...).CombinedOutput()
	if err != nil {
		u.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// screen is what the window shows now.
func (u *tmuxUI) screen() string {
	out, err := exec.Command("tmux", "-L", u.server, "capture-pane", "-p", "-t", "ui").CombinedOutput()
	if err != nil {
		return "(no window: " + strings.TrimSpace(string(out)) + ")"
	}
	return string(out)
}

// waitFor polls the screen until it shows every text.
func (u *tmuxUI) waitFor(texts ...string) string {
	u.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		s := u.screen()
		ok := true
		for _, x := range texts {
			ok = ok && strings.Contains(s, x)
		}
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			stderr, _ := os.ReadFile(filepath.Join(u.e.base, "ui.stderr"))
			u.t.Fatalf("the screen never showed %q:\n%s\nstderr: %s", texts, s, stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitMatch polls the screen until a line of it matches the regular
// expression re.
func (u *tmuxUI) waitMatch(re string) {
	u.t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(15 * time.Second)
	for !rx.MatchString(u.screen()) {
		if time.Now().After(deadline) {
			u.t.Fatalf("no line of the screen matches %q:\n%s", re, u.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitGone polls the screen until it no longer shows text.
func (u *tmuxUI) waitGone(text string) {
	u.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for strings.Contains(u.screen(), text) {
		if time.Now().After(deadline) {
			u.t.Fatalf("the screen still shows %q:\n%s", text, u.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// keys sends keys as tmux names them (j, Tab, Enter, Escape, ...).
func (u *tmuxUI) keys(keys ...string) {
	u.t.Helper()
	for _, k := range keys {
		u.tmux("send-keys", "-t", "ui", k)
	}
}

// quit presses q and waits for the process to exit 0.
func (u *tmuxUI) quit() {
	u.t.Helper()
	u.keys("q")
	deadline := time.Now().Add(15 * time.Second)
	for {
		data, err := os.ReadFile(u.exit)
		if err == nil {
			if code := strings.TrimSpace(string(data)); code != "0" {
				stderr, _ := os.ReadFile(filepath.Join(u.e.base, "ui.stderr"))
				u.t.Fatalf("turnback ui exited %s; stderr: %s", code, stderr)
			}
			return
		}
		if time.Now().After(deadline) {
			u.t.Fatalf("turnback ui did not exit on q:\n%s", u.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// uiHistory records three turns in e's folder.
func uiHistory(e *cliEnv) {
	e.write("README.md", "# demo\n")
	e.ok("snap", "-m", "add the server")
	e.write("src/main.go", "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n")
	e.write("notes.md", "one\ntwo\nthree\n")
	e.ok("end")
	e.ok("snap", "-m", "say hello with fmt")
	e.write("src/main.go", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n")
	e.ok("end")
	e.ok("snap", "-m", "write the docs")
	e.write("docs/a.md", "a\n")
	e.write("notes.md", "one\ntwo\nthree\nfour\n")
	e.ok("end")
}

// uiTree is every file of the folder with its bytes.
func uiTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(&b, "%s=%q\n", filepath.ToSlash(rel), data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestUITmux: open, navigate, see a diff, undo with its confirmation
// (n first: nothing changes), undo one path, the checkpoints and a
// restore of one, quit; the folder's bytes after each.
func TestUITmux(t *testing.T) {
	testtier.Slow(t)
	e := newCLI(t, "work")
	uiHistory(e)
	start := uiTree(t, e.dir)
	u := startUI(t, e)
	u.waitFor("write the docs", "say hello with fmt", "add the server", "turn 3 · session default", "+ a")

	// Navigate: down to turn 2, its diff.
	u.keys("j")
	u.waitFor("turn 2 · session default", `fmt.Println("hello")`)
	u.keys("Tab", "Tab", "Down")
	u.keys("k", "Tab")
	u.waitFor("turn 2 · session default")

	// Undo turns 3 and 2: the plan, n, nothing changed; then y.
	u.keys("u")
	u.waitFor("undo 2 turns of session default, back to before turn 2", "rewrite      src/main.go", "remove       docs/a.md", "Apply? y/n")
	if got := uiTree(t, e.dir); got != start {
		t.Fatalf("the plan changed the folder:\n%s", got)
	}
	u.keys("n")
	u.waitFor("cancelled: nothing changed")
	if got := uiTree(t, e.dir); got != start {
		t.Fatalf("n changed the folder:\n%s", got)
	}
	u.keys("u")
	u.waitFor("Apply? y/n")
	u.keys("y")
	u.waitFor("undid 2 turns")
	undone := "README.md=\"# demo\\n\"\nnotes.md=\"one\\ntwo\\nthree\\n\"\nsrc/main.go=\"package main\\n\\nfunc main() {\\n\\tprintln(\\\"hi\\\")\\n}\\n\"\n"
	if got := uiTree(t, e.dir); got != undone {
		t.Fatalf("after the undo:\n%s\nwant\n%s", got, undone)
	}

	// Path undo of turn 1's notes.md only.
	u.keys("G")
	u.waitFor("turn 1 · session default")
	u.keys("Tab", "g")
	u.waitFor("notes.md")
	u.keys("p")
	u.waitFor("undo notes.md of 1 turn, back to before turn 1", "Apply? y/n")
	u.keys("y")
	u.waitFor("undid 1 turn: 1 removed")
	pathUndone := "README.md=\"# demo\\n\"\nsrc/main.go=\"package main\\n\\nfunc main() {\\n\\tprintln(\\\"hi\\\")\\n}\\n\"\n"
	if got := uiTree(t, e.dir); got != pathUndone {
		t.Fatalf("after the path undo:\n%s\nwant\n%s", got, pathUndone)
	}

	// Checkpoints: the newest is the path undo's; the one before it,
	// the state before the first undo. Restore that one.
	u.keys("c")
	u.waitFor("checkpoints (the states undo, redo and restore replaced)", "after turn 3 of default")
	u.keys("j", "Enter")
	u.waitFor("restore checkpoint", "Apply? y/n")
	if got := uiTree(t, e.dir); got != pathUndone {
		t.Fatalf("the restore's plan changed the folder:\n%s", got)
	}
	u.keys("y")
	u.waitFor("restored:")
	if got := uiTree(t, e.dir); got != start {
		t.Fatalf("after restoring the checkpoint:\n%s\nwant\n%s", got, start)
	}
	u.keys("?")
	u.waitFor("turnback ui: keys", "quit")
	u.keys("Escape") // alone: an escape followed at once by q reads as alt+q
	u.waitGone("turnback ui: keys")
	u.quit()
	if got := uiTree(t, e.dir); got != start {
		t.Fatalf("after quit:\n%s", got)
	}
}

// TestUITmuxConflictMerge: an undo over an edit made since the turn is
// a conflict on screen with its choices; m merges, keeping the edit.
func TestUITmuxConflictMerge(t *testing.T) {
	testtier.Slow(t)
	e := newCLI(t, "work")
	uiHistory(e)
	e.write("notes.md", "ONE\ntwo\nthree\nfour\n")
	edited := uiTree(t, e.dir)
	u := startUI(t, e)
	u.waitFor("write the docs")
	u.keys("u")
	u.waitFor("These paths were edited since the turn:", "notes.md", "m merge", "f force", "esc cancel")
	if got := uiTree(t, e.dir); got != edited {
		t.Fatalf("the conflict changed the folder:\n%s", got)
	}
	u.keys("m")
	u.waitFor("keeping your edits", "merge        notes.md", "Apply? y/n")
	u.keys("y")
	u.waitFor("undid 1 turn")
	if got := string(e.read("notes.md")); got != "ONE\ntwo\nthree\n" {
		t.Errorf("notes.md = %q, want the turn's line gone and the edit kept", got)
	}
	if _, err := os.Stat(e.path("docs/a.md")); !os.IsNotExist(err) {
		t.Errorf("docs/a.md: %v, want it removed", err)
	}
	u.quit()
}

// TestUINeedsTerminal: without a terminal, exit 2 and say so; nothing
// is created.
func TestUINeedsTerminal(t *testing.T) {
	e := newCLI(t, "work")
	e.write("a.txt", "a\n")
	r := e.expect(2, "ui")
	if !strings.Contains(r.stderr, "turnback ui needs a terminal") {
		t.Errorf("stderr = %q", r.stderr)
	}
	if ents, _ := os.ReadDir(e.xdg); len(ents) != 0 {
		t.Errorf("a store was created: %v", ents)
	}
}

// TestUITmuxLive: while a watch daemon serves the folder, a turn ended
// in another terminal shows within a second or two, and the user's own
// edit shows in the working tree row; an undo from the UI runs in the
// daemon.
func TestUITmuxLive(t *testing.T) {
	testtier.Slow(t)
	e := newCLI(t, "work")
	uiHistory(e)
	e.ok("watch", "--detach")
	t.Cleanup(func() { e.run("watch", "--stop") })
	u := startUI(t, e)
	u.waitFor("live (daemon)", "write the docs")
	e.ok("snap", "-m", "an agent elsewhere")
	e.write("agent.txt", "x\n")
	e.ok("end")
	start := time.Now()
	u.waitFor("an agent elsewhere")
	t.Logf("the new turn showed %v after its end returned", time.Since(start).Round(10*time.Millisecond))
	e.write("mine.txt", "mine\n")
	u.waitMatch(`working tree +\+1 ~0 -0`)
	u.keys("g", "j", "j")
	u.waitFor("turn 4 · session default")
	u.keys("u")
	u.waitFor("remove       agent.txt", "Apply? y/n")
	u.keys("y")
	u.waitFor("undid 1 turn: 1 removed")
	if _, err := os.Stat(e.path("agent.txt")); !os.IsNotExist(err) {
		t.Errorf("agent.txt: %v, want it removed", err)
	}
	if got := string(e.read("mine.txt")); got != "mine\n" {
		t.Errorf("mine.txt = %q, want the user's edit kept", got)
	}
	u.quit()
}
