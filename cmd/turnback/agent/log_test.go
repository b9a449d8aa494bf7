package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A hook.log past logMax starts again; the full one is kept as
// hook.log.1, replacing the one before it.
func TestLogRotates(t *testing.T) {
	dir := t.TempDir()
	a := &Agent{Name: "claude"}
	name := filepath.Join(dir, "hook.log")
	a.Log(dir, errors.New("first"))
	if b, _ := os.ReadFile(name); !strings.HasSuffix(string(b), "hook claude: first\n") {
		t.Fatalf("hook.log = %q", b)
	}
	full := strings.Repeat("x", logMax-1) + "\n"
	if err := os.WriteFile(name, []byte(full), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name+".1", []byte("older\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a.Log(dir, errors.New("second"))
	if b, _ := os.ReadFile(name + ".1"); string(b) != full {
		t.Errorf("hook.log.1 holds %d bytes, want the full log's %d", len(b), len(full))
	}
	if b, _ := os.ReadFile(name); strings.Count(string(b), "\n") != 1 || !strings.HasSuffix(string(b), "hook claude: second\n") {
		t.Errorf("hook.log after the rotation = %q", b)
	}
}
