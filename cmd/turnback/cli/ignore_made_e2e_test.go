package cli

import "testing"

// TestUndoMakesFileIgnoredNowCLI: turn 1 deletes d.log; then the user,
// outside any turn, ignores *.log. The undo brings d.log back byte for
// byte (nothing was there), and the state it records is the folder:
// status lists no change.
func TestUndoMakesFileIgnoredNowCLI(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	e.write(".gitignore", "")
	e.write("a.txt", "a\n")
	e.write("d.log", "the log, before the turn\n")
	e.ok("snap", "-m", "tidy")
	e.rm("d.log")
	e.ok("end")
	e.write(".gitignore", "*.log\n")
	r := e.ok("undo")
	if got := string(e.read("d.log")); got != "the log, before the turn\n" {
		t.Fatalf("after undo d.log holds %q\nundo: %s%s", got, r.stdout, r.stderr)
	}
	if got := string(e.read(".gitignore")); got != "*.log\n" {
		t.Errorf("after undo .gitignore holds %q, want the user's", got)
	}
	var st struct {
		Changes []struct {
			Path string `json:"path"`
		} `json:"changes"`
	}
	e.okJSON(&st, "status")
	if len(st.Changes) != 0 {
		t.Errorf("status after the undo lists %+v; want no change", st.Changes)
	}
}
