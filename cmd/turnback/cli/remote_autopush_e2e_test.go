package cli

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/turnback/turnback/cas/s3/s3test"
)

// autoPushLog returns push.log of e's store ("" when absent).
func autoPushLog(t *testing.T, e *cliEnv) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(e.storeDir(), "push.log"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(data)
}

// autoPushWait polls push.log until it holds n outcome lines (pushed or
// failed) and returns it. The bound only keeps a broken build from
// hanging the run; nothing is asserted about the time taken.
func autoPushWait(t *testing.T, e *cliEnv, n int) string {
	t.Helper()
	for i := 0; ; i++ {
		log := autoPushLog(t, e)
		if strings.Count(log, " pushed ")+strings.Count(log, " failed: ") >= n {
			return log
		}
		if i > 3000 {
			t.Fatalf("push.log has not %d outcomes:\n%s", n, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRemoteCLIAutoPush: with TURNBACK_REMOTE_PUSH=1, end prints what it
// prints without it and a push of the session follows in the
// background: a clone elsewhere is then the folder byte for byte. Two
// ends and a snap in quick succession (the snap meeting the background
// push that holds the store) all succeed, and the next pushes bring the
// remote up to date. Without the variable nothing is pushed.
func TestRemoteCLIAutoPush(t *testing.T) {
	srv := s3test.Start(t)
	a := remoteEnv(t, srv, "a")
	a.ok("remote", "set", "s3://tb-auto/x", "--create")
	a.write("src/app.go", "package app\n")
	a.write("big.bin", strings.Repeat("0123456789abcdef", 1<<16))

	// Without the variable: end pushes nothing.
	a.ok("snap")
	a.write("notes.txt", "one\n")
	a.ok("end")
	if log := autoPushLog(t, a); log != "" {
		t.Fatalf("push.log without TURNBACK_REMOTE_PUSH:\n%s", log)
	}
	if _, err := os.Stat(filepath.Join(srv.Root, "tb-auto", "x")); !os.IsNotExist(err) {
		t.Fatalf("the bucket holds x/ without TURNBACK_REMOTE_PUSH (%v)", err)
	}

	a.extra = append(a.extra, "TURNBACK_REMOTE_PUSH=1")
	a.ok("snap")
	a.write("notes.txt", "two\n")
	r := a.ok("end")
	var doc remoteLogDoc
	a.okJSON(&doc, "log")
	if _, after := doc.turn(t, 2); r.stdout != after[:12]+"\n" || r.stderr != "turn 2 ended: +0 ~1 -0\n" {
		t.Fatalf("end with TURNBACK_REMOTE_PUSH (after %s): %s", after, r)
	}
	log := autoPushWait(t, a, 1)
	if !strings.Contains(log, " pushed default: ") || strings.Contains(log, "failed") {
		t.Fatalf("push.log:\n%s", log)
	}
	b := remoteClone(t, srv, "s3://tb-auto/x", "default")
	b.same("clone after the background push", a.tree())

	// Two ends and a snap in quick succession.
	for i := 3; i <= 4; i++ {
		a.ok("snap")
		a.write("notes.txt", fmt.Sprintf("turn %d\n", i))
		a.write(fmt.Sprintf("src/f%d.go", i), strings.Repeat("x", i*1000))
		a.ok("end")
	}
	a.ok("snap")
	want := a.tree()
	log = autoPushWait(t, a, 3)
	if strings.Count(log, " pushed default: ") != 3 {
		t.Fatalf("push.log:\n%s", log)
	}
	c := remoteClone(t, srv, "s3://tb-auto/x", "default")
	c.same("clone after three background pushes", want)
	var logC remoteLogDoc
	c.okJSON(&logC, "log")
	var logA remoteLogDoc
	a.okJSON(&logA, "log")
	if _, after := logC.turn(t, 4); len(logC.Turns) < 4 || after != func() string { _, x := logA.turn(t, 4); return x }() {
		t.Fatalf("clone's log: %+v\nA's: %+v", logC, logA)
	}
	a.ok("remote", "verify")
	t.Logf("push.log:\n%s", log)
}

// TestRemoteCLIAutoPushFails: a background push that fails (wrong
// secret key; a server that answers nothing until it drops the
// connection) leaves end's exit code and output as they are, and the
// log names the failure. end returns while the push still waits for
// the server: the push is detached and holds none of end's output; a
// snap meanwhile does not wait for the store.
func TestRemoteCLIAutoPushFails(t *testing.T) {
	srv := s3test.Start(t)
	a := remoteEnv(t, srv, "a")
	a.write("f.txt", "one\n")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var held []net.Conn
	hang, drop := true, false
	go func() { // a proxy to srv that can hang
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			if drop {
				conn.Close()
				mu.Unlock()
				continue
			}
			if hang {
				held = append(held, conn)
				mu.Unlock()
				continue
			}
			mu.Unlock()
			go func() {
				defer conn.Close()
				up, err := net.Dial("tcp", strings.TrimPrefix(srv.Endpoint, "http://"))
				if err != nil {
					return
				}
				defer up.Close()
				go func() { _, _ = io.Copy(up, conn) }()
				_, _ = io.Copy(conn, up)
			}()
		}
	}()
	defer ln.Close()
	mu.Lock()
	hang = false
	mu.Unlock()
	a.ok("remote", "set", "s3://tb-fail/x", "--create", "--endpoint", "http://"+ln.Addr().String())
	a.extra = append(a.extra, "TURNBACK_REMOTE_PUSH=1")

	// Wrong credentials.
	a.ok("snap")
	a.write("f.txt", "two\n")
	good := a.extra
	a.extra = append(append([]string(nil), good...), "AWS_SECRET_ACCESS_KEY=wrong")
	r := a.ok("end")
	if r.stderr != "turn 1 ended: +0 ~1 -0\n" || len(r.stdout) != 13 {
		t.Fatalf("end: %s", r)
	}
	log := autoPushWait(t, a, 1)
	if !strings.Contains(log, "push --session default failed: ") || strings.Contains(log, "pushed") {
		t.Fatalf("push.log:\n%s", log)
	}
	a.extra = good

	// A server that answers nothing: end returns, the push waits.
	mu.Lock()
	hang = true
	mu.Unlock()
	a.ok("snap")
	a.write("f.txt", "three\n")
	r = a.ok("end")
	if r.stderr != "turn 2 ended: +0 ~1 -0\n" || len(r.stdout) != 13 {
		t.Fatalf("end: %s", r)
	}
	for { // the push has reached the server
		mu.Lock()
		n := len(held)
		mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if log := autoPushLog(t, a); strings.Count(log, " failed: ") != 1 {
		t.Fatalf("push.log while the push waits for the server:\n%s", log)
	}
	// The push waits for the server without holding the store: the
	// agent's next snap does not wait for it.
	a.extra = append(a.extra, "TURNBACK_LOCK_WAIT=0")
	a.ok("snap")
	mu.Lock()
	drop = true
	for _, c := range held {
		c.Close()
	}
	mu.Unlock()
	log = autoPushWait(t, a, 2)
	if strings.Count(log, "push --session default failed: ") != 2 {
		t.Fatalf("push.log:\n%s", log)
	}
	t.Logf("push.log:\n%s", log)
	// The store is unharmed.
	a.ok("verify")
}

// TestRemoteCLIAutoPushHook: with TURNBACK_REMOTE_PUSH=1, Claude Code's
// Stop hook (end) pushes the conversation's session in the background;
// the hook's output is exactly what it is without it, and a clone of
// the session is the folder.
func TestRemoteCLIAutoPushHook(t *testing.T) {
	srv := s3test.Start(t)
	e := newHookEnv(t)
	e.extra = srv.Env()
	e.write("README.md", "# my project\n")
	e.ok("remote", "set", "s3://tb-hook/x", "--create")
	e.extra = append(e.extra, "TURNBACK_REMOTE_PUSH=1")
	prompt := hookPayload(t, "claude_user_prompt_submit.json", e.dir)
	sid := payloadSession(t, prompt)
	e.hook("claude", prompt, 0)
	e.write("src/login.html", "<form></form>\n")
	e.write("README.md", "# my project\n\nNow with a login form.\n")
	if log := autoPushLog(t, e); log != "" {
		t.Fatalf("push.log after the prompt's snap:\n%s", log)
	}
	if r := e.hook("claude", hookPayload(t, "claude_stop.json", e.dir), 0); r.stderr != "" {
		t.Fatalf("Stop hook: %s", r)
	}
	log := autoPushWait(t, e, 1)
	if !strings.Contains(log, " pushed "+sid+": ") {
		t.Fatalf("push.log:\n%s", log)
	}
	b := remoteClone(t, srv, "s3://tb-hook/x", sid)
	b.same("clone of the hook's session", e.tree())
}

// TestRemoteCLIAutoPushThroughDaemon: with a watch daemon serving the
// folder, end's background push is handed to the daemon with the
// caller's AWS_* variables (the remote's commands forward them; the
// daemon's own environment is never read for a forwarded command), and
// the lock that keeps background pushes one at a time is taken by the
// process that pushes (a lock taken before the hand-over would have the
// daemon's copy wait for the caller, which waits for the daemon).
func TestRemoteCLIAutoPushThroughDaemon(t *testing.T) {
	srv := s3test.Start(t)
	a := remoteEnv(t, srv, "a")
	a.ok("remote", "set", "s3://tb-autod/x", "--create")
	a.write("f.txt", "one\n")
	a.ok("snap")
	a.ok("watch", "--detach")
	t.Cleanup(func() { a.run("watch", "--stop") })
	a.extra = append(a.extra, "TURNBACK_REMOTE_PUSH=1")
	a.write("f.txt", "two\n")
	a.write("g.txt", "new\n")
	a.ok("end")
	log := autoPushWait(t, a, 1)
	if !strings.Contains(log, " pushed default: ") || strings.Contains(log, "failed") {
		t.Fatalf("push.log:\n%s", log)
	}
	want := a.tree()
	a.ok("snap")
	a.write("g.txt", "newer\n")
	a.ok("end")
	if log = autoPushWait(t, a, 2); strings.Count(log, " pushed default: ") != 2 {
		t.Fatalf("push.log:\n%s", log)
	}
	want = a.tree()
	b := remoteClone(t, srv, "s3://tb-autod/x", "default")
	b.same("clone after pushes through the daemon", want)
	// The daemon ran the ends and the pushes (forwarded requests).
	var st struct {
		PID      int `json:"pid"`
		Requests int `json:"requests"`
	}
	if sr := a.okJSON(&st, "watch", "--status"); st.PID == 0 || st.Requests < 4 {
		t.Fatalf("the daemon did not serve the ends and pushes: %s", sr)
	}
}
