package cli

import (
	"os"
	"regexp"
	"testing"
)

// TestRemoteCLIPullApply (issue 36 item 6): after a pull the folder is
// unchanged, and it says so, with the commands that bring the pulled
// turn in. status shows only the user's edit (it showed the reverse of
// the pulled turn); undo refuses, saying why (it "undid 1 turn: 0
// restored"). pull --apply with the user's edit on a path the pulled
// turn changed is a conflict: exit 3, nothing changed, the edit kept.
// Without it in the way, pull --apply brings the turn in and keeps the
// user's other edit; status and undo then work as after any turn.
func TestRemoteCLIPullApply(t *testing.T) {
	const url = "s3://tb-pull-apply/p"
	srv, a := remoteOrigin(t, url)
	a.write("f.txt", "zero\n")
	a.write("g.txt", "base\n")
	pushTurn(a, map[string]string{"f.txt": "one\n"}, "--session", "s")
	b := remoteClone(t, srv, url, "s")
	pushTurn(a, map[string]string{"f.txt": "two\n", "h.txt": "new\n"}, "--session", "s")

	b.write("g.txt", "mine\n") // the user's edit, on a path no turn changed
	const note = "using session s (last turn just now)\n"
	r := b.run("pull")
	matchFirst(t, r, `pulled s: turn 2, \d+ objects, .* received`,
		"the folder is unchanged: it lacks turn 2 (status and diff show only the edits made in it); next:\n"+
			"  turnback pull --apply   bring in what they changed; edits made in the folder stay (exit 3 if one is in the way)\n"+
			"  turnback restore @2     make the folder exactly the session's last state (what it holds goes into a checkpoint)\n")
	if r.code != 0 || r.stderr != note {
		t.Fatalf("pull: %s", r)
	}
	if r := b.ok("status"); r.stdout != "M g.txt\n" || r.stderr != note {
		t.Fatalf("status after the pull: %s", r)
	}
	r = b.run("undo")
	if r.code != 1 || r.stdout != "" || r.stderr != note+"turnback: undo changed nothing: session s: turn 2 was pulled and not brought into the folder; "+
		"turnback pull --apply brings the pulled turns in first\n" {
		t.Fatalf("undo after the pull: %s", r)
	}
	if string(b.read("f.txt")) != "one\n" || string(b.read("g.txt")) != "mine\n" {
		t.Fatal("the refused undo changed the folder")
	}

	b.write("f.txt", "B's edit\n") // on the path the pulled turn changed
	r = b.run("pull", "--apply")
	const conflict = "turnback: conflict: pull --apply changed nothing in the folder: 1 path the pulled turns changed was edited in it:\n" +
		"  f.txt: modified since\n" +
		"The pulled turns are in the store. Keep the edits, or run one of:\n" +
		"  turnback --force pull --apply   apply anyway: the edits stay in a checkpoint (turnback checkpoints lists it)\n" +
		"  turnback restore @2             make the folder exactly the session's last state: the edits stay in a checkpoint\n"
	if r.code != 3 || r.stdout != "nothing to pull: session s here holds everything the remote's does; kept as it is\n" || r.stderr != note+conflict {
		t.Fatalf("pull --apply over an edit: %s", r)
	}
	if string(b.read("f.txt")) != "B's edit\n" || string(b.read("g.txt")) != "mine\n" {
		t.Fatal("the refused apply changed the folder")
	}
	if _, err := os.Lstat(b.path("h.txt")); !os.IsNotExist(err) {
		t.Fatalf("the refused apply created h.txt: %v", err)
	}

	b.write("f.txt", "one\n") // the user takes the edit back
	r = b.run("pull", "--apply")
	applied := regexp.MustCompile(`^nothing to pull: session s here holds everything the remote's does; kept as it is\n` +
		`applied 1 turn: 1 restored, 0 deleted, 1 brought back\n  M f\.txt\n  A h\.txt\n` +
		`checkpoint ([0-9a-f]{12}) \(turnback restore ([0-9a-f]{12}) goes back\)\n$`)
	if m := applied.FindStringSubmatch(r.stdout); r.code != 0 || r.stderr != note || m == nil || m[1] != m[2] {
		t.Fatalf("pull --apply: %s", r)
	}
	for name, want := range map[string]string{"f.txt": "two\n", "g.txt": "mine\n", "h.txt": "new\n"} {
		if got := string(b.read(name)); got != want {
			t.Fatalf("after pull --apply %s is %q, want %q", name, got, want)
		}
	}
	if r := b.ok("status"); r.stdout != "M g.txt\n" {
		t.Fatalf("status after pull --apply: %s", r)
	}
	b.ok("undo")
	if _, err := os.Lstat(b.path("h.txt")); !os.IsNotExist(err) || string(b.read("f.txt")) != "one\n" || string(b.read("g.txt")) != "mine\n" {
		t.Fatalf("undo after pull --apply: h.txt %v, f.txt %q", err, b.read("f.txt"))
	}
}
