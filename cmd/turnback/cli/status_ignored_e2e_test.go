package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// statusIgnoredTree is a folder with one path skipped by each rule, and
// a hand-written build/ that is captured.
var statusIgnoredTree = map[string]string{
	".gitignore":          "# logs\n*.log\n",
	"a.log":               "log\n",
	"node_modules/m/x.js": "x\n",
	"target/CACHEDIR.TAG": e2eCacheDirTag,
	"target/out.bin":      "bin\n",
	"build/run.sh":        "#!/bin/sh\n",
	"src/main.go":         "package main\n",
}

const statusIgnoredHuman = "skipped (never captured, never touched by undo): 3 paths\n" +
	"I a.log  ignored by .gitignore line 2: *.log\n" +
	"I node_modules/  built-in name (dependencies or a cache)\n" +
	"I target/  generated: holds target/CACHEDIR.TAG\n"

var statusIgnoredJSON = []map[string]any{
	{"path": "a.log", "reason": "ignored by .gitignore line 2: *.log", "rule": "file", "file": ".gitignore", "line": 2.0},
	{"path": "node_modules", "dir": true, "reason": "built-in name (dependencies or a cache)", "rule": "name"},
	{"path": "target", "dir": true, "reason": "generated: holds CACHEDIR.TAG", "rule": "evidence", "evidence": "target/CACHEDIR.TAG"},
}

// TestStatusIgnored: status --ignored lists every skipped path (the
// outermost only) with its rule, the ignore file and line or the marker
// found; --json carries the same as "ignored". Plain status lists none.
func TestStatusIgnored(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	for p, d := range statusIgnoredTree {
		e.write(p, d)
	}
	id := e.snapID("snap")
	r := e.ok("status", "--ignored")
	if want := "no changes since " + id[:12] + "\n" + statusIgnoredHuman; r.stdout != want {
		t.Errorf("status --ignored:\n%s\nwant\n%s", r.stdout, want)
	}
	if r := e.ok("status"); r.stdout != "no changes since "+id[:12]+"\n" {
		t.Errorf("status:\n%s", r.stdout)
	}
	var doc struct {
		Ignored []map[string]any `json:"ignored"`
	}
	e.okJSON(&doc, "status", "--ignored")
	if !reflect.DeepEqual(doc.Ignored, statusIgnoredJSON) {
		t.Errorf("status --json --ignored: %v\nwant %v", doc.Ignored, statusIgnoredJSON)
	}
}

// TestStatusIgnoredDaemon: the same through a watch daemon serving the
// folder (GET /v1/status?ignored=true).
func TestStatusIgnoredDaemon(t *testing.T) {
	w := newDaemonWorld(t)
	for p, d := range statusIgnoredTree {
		full := filepath.Join(w.wt, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(d), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	doc := w.snap()
	w.snap() // the second capture is incremental: the skipped list is carried over
	so, se, code := w.cli("status", "--ignored")
	if want := "no changes since " + doc.Snapshot[:12] + "\n" + statusIgnoredHuman; code != 0 || so != want {
		t.Errorf("status --ignored: exit %d\n%s%s\nwant\n%s", code, so, se, want)
	}
	so, se, code = w.cli("--json", "status", "--ignored")
	var jd struct {
		Ignored []map[string]any `json:"ignored"`
		Stats   struct {
			Watch *struct{} `json:"watch"`
		} `json:"stats"`
	}
	if err := json.Unmarshal([]byte(so), &jd); err != nil || code != 0 {
		t.Fatalf("status --json --ignored: exit %d, %v\n%s%s", code, err, so, se)
	}
	if jd.Stats.Watch == nil {
		t.Errorf("status did not go through the daemon:\n%s", so)
	}
	if !reflect.DeepEqual(jd.Ignored, statusIgnoredJSON) {
		t.Errorf("status --json --ignored: %v\nwant %v", jd.Ignored, statusIgnoredJSON)
	}
}
