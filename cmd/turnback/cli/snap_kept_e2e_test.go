package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// snapDoc is what snap --json prints, as far as these tests read it.
type snapDoc struct {
	Snapshot string `json:"snapshot"`
	Turn     int    `json:"turn"`
	Kept     bool   `json:"kept"`
}

// logDoc is what log --json prints, as far as these tests read it.
type logDoc struct {
	Turns []struct {
		Turn    int    `json:"turn"`
		Open    bool   `json:"open"`
		Started string `json:"started"`
		Message string `json:"message"`
	} `json:"turns"`
}

// TestE2ESnapKeepsUnchangedTurn drives the rule of a snap without a
// message through the binary: an unchanged open turn without a message
// stays open (same number, same start, "kept"), and nothing is written
// to the store (its tables stay as they are); a message, metadata or a
// change make the usual new turn, and undo still undoes the last turn
// that changed something.
func TestE2ESnapKeepsUnchangedTurn(t *testing.T) {
	e := newStoreEnv(t)
	e.write("a.txt", "one\n")
	e.write("src/b.go", "package b\n")
	// Past the stat cache's racy window, so that a second capture has
	// nothing of its own to write.
	time.Sleep(300 * time.Millisecond)
	var first, again snapDoc
	e.okJSON(&first, "snap")
	e.okJSON(&again, "snap") // records the stat cache the first could not
	if again.Turn != 1 || !again.Kept || again.Snapshot != first.Snapshot {
		t.Fatalf("second snap without change: %+v, want turn 1 kept at %s", again, first.Snapshot)
	}
	tables := func() []string {
		ents, err := os.ReadDir(filepath.Join(e.store, "db"))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, de := range ents {
			if strings.HasSuffix(de.Name(), ".sst") {
				fi, _ := de.Info()
				out = append(out, de.Name()+" "+fi.ModTime().String())
			}
		}
		return out
	}
	var before logDoc
	e.okJSON(&before, "log")
	stored := tables()
	for range 3 {
		r := e.ok("snap")
		if want := "turn 1 of session default still open (nothing changed since it started)"; !strings.Contains(r.stderr, want) {
			t.Fatalf("snap said %q, want %q", r.stderr, want)
		}
	}
	if got := tables(); !slices.Equal(got, stored) {
		t.Fatalf("kept snaps wrote to the store: tables %v, then %v", stored, got)
	}
	var after logDoc
	e.okJSON(&after, "log")
	if len(after.Turns) != 1 || !after.Turns[0].Open || after.Turns[0].Turn != 1 || after.Turns[0].Started != before.Turns[0].Started {
		t.Fatalf("log after kept snaps: %+v, want turn 1 open, started %s", after, before.Turns[0].Started)
	}

	// A message: turn 1 is dropped (it changed nothing), turn 2 opens.
	var msg snapDoc
	e.okJSON(&msg, "snap", "-m", "add a line")
	if msg.Turn != 2 || msg.Kept {
		t.Fatalf("snap -m: %+v, want turn 2", msg)
	}
	// An unchanged turn with a message is not kept by a snap without one.
	var plain snapDoc
	e.okJSON(&plain, "snap")
	if plain.Turn != 3 || plain.Kept {
		t.Fatalf("snap after snap -m: %+v, want turn 3", plain)
	}
	// Metadata is a new turn too.
	var meta snapDoc
	e.okJSON(&meta, "snap", "--meta", "k=v")
	if meta.Turn != 4 || meta.Kept {
		t.Fatalf("snap --meta: %+v, want turn 4", meta)
	}
	e.okJSON(&plain, "snap")
	if plain.Turn != 5 || plain.Kept {
		t.Fatalf("snap after snap --meta: %+v, want turn 5", plain)
	}
	// Turn 5 changes a.txt; the snap after it closes it and opens 6,
	// which the next snap keeps.
	e.write("a.txt", "one\ntwo\n")
	var changed, kept snapDoc
	e.okJSON(&changed, "snap")
	e.okJSON(&kept, "snap")
	if changed.Turn != 6 || changed.Kept || kept.Turn != 6 || !kept.Kept {
		t.Fatalf("after a change: %+v then %+v, want turn 6 opened then kept", changed, kept)
	}
	e.ok("undo")
	if got := string(e.read("a.txt")); got != "one\n" {
		t.Fatalf("undo after kept snaps: a.txt %q, want %q", got, "one\n")
	}
	if got := string(e.read("src/b.go")); got != "package b\n" {
		t.Fatalf("undo after kept snaps: src/b.go %q", got)
	}
}
