//go:build unix

package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnback/turnback/watch/daemon"
)

// TestSnapMetaCLI: snap --meta stores the pairs with the turn; log --json
// and show --json return them, also when a watch daemon runs the
// commands; a pair that is not KEY=VALUE, a bad key, a key given twice or
// too many pairs is exit 2 and records nothing.
func TestSnapMetaCLI(t *testing.T) {
	e := newCLI(t, "work")
	e.write("a.txt", "one\n")
	e.ok("snap", "-m", "first", "--meta", "message_index=0", "--meta", "prompt.id=p-1 = x")
	e.write("a.txt", "two\n")
	var end struct{ Snapshot string }
	e.okJSON(&end, "end")
	var log struct {
		Turns []struct {
			Turn int
			Meta map[string]string
		}
	}
	e.okJSON(&log, "log")
	want := map[string]string{"message_index": "0", "prompt.id": "p-1 = x"}
	if len(log.Turns) != 1 || fmt.Sprint(log.Turns[0].Meta) != fmt.Sprint(want) {
		t.Fatalf("log --json: %+v", log)
	}
	r := e.ok("--json", "show", end.Snapshot[:12])
	if !strings.Contains(r.stdout, `"message_index": "0"`) {
		t.Fatalf("show --json has no meta:\n%s", r.stdout)
	}
	many := []string{"snap"}
	for i := 0; i <= 64; i++ {
		many = append(many, "--meta", fmt.Sprintf("k%d=v", i))
	}
	for _, args := range [][]string{{"snap", "--meta", "novalue"}, {"snap", "--meta", "a b=1"}, {"snap", "--meta", "=1"},
		{"snap", "--meta", "k=1", "--meta", "k=2"}, {"snap", "--meta", "k=" + strings.Repeat("x", 5000)}, many} {
		if r := e.expect(2, args...); !strings.Contains(r.stderr, "invalid turn metadata") {
			t.Errorf("%v: %s", args, r.stderr)
		}
	}
	e.okJSON(&log, "log")
	if len(log.Turns) != 1 {
		t.Fatalf("a refused snap recorded a turn: %+v", log)
	}

	// Through a watch daemon (the command line is forwarded).
	e.ok("watch", "--detach")
	defer e.run("watch", "--stop")
	e.ok("snap", "--meta", "message_index=2")
	e.write("b.txt", "new\n")
	e.ok("end")
	e.okJSON(&log, "log")
	if len(log.Turns) != 2 || log.Turns[0].Meta["message_index"] != "2" {
		t.Fatalf("log --json through the daemon: %+v", log)
	}
	// serve refuses while the watch daemon serves the folder.
	if r := e.expect(4, "serve"); !strings.Contains(r.stderr, "already watches") || !strings.Contains(r.stderr, "HTTP API") {
		t.Fatalf("serve beside watch: %v", r)
	}
}

// TestServeCLI: serve refuses addresses that are not loopback, prints
// (and makes, 0600) the bearer token, serves the API on loopback TCP to
// requests with the token only, and info --json reports it; SIGTERM
// stops it.
func TestServeCLI(t *testing.T) {
	e := newCLI(t, "work")
	e.store = filepath.Join(e.base, "store")
	e.write("a.txt", "one\n")
	for _, addr := range []string{"0.0.0.0:7077", "192.0.2.1:80", "example.com:80", "127.0.0.1"} {
		if r := e.expect(1, "serve", "--listen", addr); !strings.Contains(r.stderr, "listen address") {
			t.Errorf("serve --listen %s: %v", addr, r)
		}
	}
	if _, ok := daemon.Ping(e.store); ok {
		t.Fatal("a refused serve left a daemon")
	}
	tok := strings.TrimSpace(e.ok("serve", "--print-token").stdout)
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(tok) {
		t.Fatalf("token %q", tok)
	}
	if again := strings.TrimSpace(e.ok("serve", "--print-token").stdout); again != tok {
		t.Fatalf("the token changed: %s, %s", tok, again)
	}
	if fi, err := os.Stat(filepath.Join(e.store, daemon.TokenFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v", err)
	}
	cmd := e.command("serve", "--listen", "127.0.0.1:0")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := <-exited; err != nil {
			t.Errorf("serve exited: %v", err)
		}
	}()
	var info *daemon.Info
	for info == nil || !info.Ready {
		select {
		case err := <-exited:
			t.Fatalf("serve exited: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
		info, _ = daemon.PingWithin(e.store, time.Second)
	}
	var doc struct {
		Daemon struct {
			HTTP   bool   `json:"http"`
			Listen string `json:"listen"`
			Socket string `json:"socket"`
		} `json:"watch_daemon"`
	}
	e.okJSON(&doc, "info")
	if !doc.Daemon.HTTP || doc.Daemon.Listen != info.Listen || doc.Daemon.Socket != info.Socket {
		t.Fatalf("info --json: %+v, daemon %+v", doc, info)
	}
	for _, c := range []struct {
		token string
		want  int
	}{{"", 401}, {tok[:63], 401}, {tok, 200}} {
		req, _ := http.NewRequest("POST", "http://"+info.Listen+"/v1/sessions/default/snap", strings.NewReader(`{"meta":{"by":"tcp"}}`))
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Fatalf("token %q: %d %v", c.token, resp.StatusCode, body)
		}
	}
	// watch --list finds the serve process (by its command line on Linux,
	// by its socket elsewhere) and its pid.
	var list struct {
		Daemons []struct {
			PID       int  `json:"pid"`
			Answering bool `json:"answering"`
		} `json:"daemons"`
	}
	e.okJSON(&list, "watch", "--list", "--under", e.base)
	if len(list.Daemons) != 1 || list.Daemons[0].PID != info.PID || !list.Daemons[0].Answering {
		t.Fatalf("watch --list: %+v, daemon %d", list, info.PID)
	}
	var log struct {
		Turns []struct{ Meta map[string]string }
	}
	e.okJSON(&log, "log")
	if len(log.Turns) != 1 || log.Turns[0].Meta["by"] != "tcp" {
		t.Fatalf("log --json: %+v", log)
	}
}
