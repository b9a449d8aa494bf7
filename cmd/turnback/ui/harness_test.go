package ui

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/turnback/turnback"
)

var cpTime = regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d  .{14}  after turn`)

var update = flag.Bool("update", false, "rewrite the golden frames in testdata/")

// t0 is the fixture's clock: turns start a minute apart from it.
var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// world is a folder with a store, and a UI model on it.
type world struct {
	t     *testing.T
	dir   string
	store string
	clock time.Time
	m     *Model
	limit int64 // the size limit (0: the default)
}

func newWorld(t *testing.T) *world {
	t.Helper()
	base, err := os.MkdirTemp("", "ui")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	w := &world{t: t, dir: filepath.Join(base, "work"), store: filepath.Join(base, "store"), clock: t0}
	if err := os.MkdirAll(w.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *world) opts() turnback.Options {
	return turnback.Options{Store: w.store, LockWait: -1, KeepTurns: -1, KeepAge: -1, SizeLimit: w.limit,
		Now: func() time.Time { return w.clock }}
}

// write sets file p (slash-separated) to s, mode 0644.
func (w *world) write(p, s string) {
	w.t.Helper()
	full := filepath.Join(w.dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
		w.t.Fatal(err)
	}
	if err := os.Chmod(full, 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// turn records a turn of session: edit runs between its snap and end.
func (w *world) turn(session, msg string, edit func()) {
	w.t.Helper()
	ctx := context.Background()
	o := w.opts()
	o.Session = session
	r, err := turnback.Open(ctx, w.dir, o)
	if err != nil {
		w.t.Fatal(err)
	}
	defer r.Close()
	w.clock = w.clock.Add(time.Minute)
	if _, err := r.Snap(ctx, msg); err != nil {
		w.t.Fatal(err)
	}
	edit()
	w.clock = w.clock.Add(30 * time.Second)
	if _, err := r.End(ctx); err != nil {
		w.t.Fatal(err)
	}
}

// open starts the UI on the folder at width×height and runs its first
// loads.
func (w *world) open(width, height int, all bool) *Model {
	w.t.Helper()
	f := &Folder{WorkTree: w.dir, Options: w.opts()}
	session, amb, err := Pick(context.Background(), f, "")
	if err != nil {
		w.t.Fatal(err)
	}
	now := w.clock.Add(5 * time.Minute)
	w.m = New(context.Background(), Config{Folder: f, Session: session, All: all || amb,
		Now: func() time.Time { return now }, Loc: time.UTC})
	w.send(tea.WindowSizeMsg{Width: width, Height: height})
	w.run(w.m.Init())
	return w.m
}

// send gives the model msg and runs what it asks for.
func (w *world) send(msg tea.Msg) {
	w.t.Helper()
	_, cmd := w.m.Update(msg)
	w.run(cmd)
}

// run runs cmd and its messages to the end, as the program would (one
// at a time, in order).
func (w *world) run(cmd tea.Cmd) {
	w.t.Helper()
	if cmd == nil {
		return
	}
	msg := cmd()
	switch msg := msg.(type) {
	case nil, tea.QuitMsg:
	case tea.BatchMsg:
		for _, c := range msg {
			w.run(c)
		}
	default:
		w.send(msg)
	}
}

// keys presses each key: a single character, or a name as
// tea.KeyPressMsg.String gives it ("tab", "enter", "down", "shift+tab").
func (w *world) keys(keys ...string) {
	w.t.Helper()
	for _, k := range keys {
		w.send(keyMsg(k))
	}
}

var namedKeys = map[string]rune{"tab": tea.KeyTab, "enter": tea.KeyEnter, "esc": tea.KeyEscape, "down": tea.KeyDown,
	"up": tea.KeyUp, "left": tea.KeyLeft, "right": tea.KeyRight, "backspace": tea.KeyBackspace, "space": tea.KeySpace,
	"pgdown": tea.KeyPgDown, "pgup": tea.KeyPgUp, "home": tea.KeyHome, "end": tea.KeyEnd}

func keyMsg(k string) tea.KeyPressMsg {
	if strings.HasPrefix(k, "shift+") {
		m := keyMsg(strings.TrimPrefix(k, "shift+"))
		m.Mod |= tea.ModShift
		return m
	}
	if strings.HasPrefix(k, "ctrl+") {
		return tea.KeyPressMsg{Code: rune(k[len(k)-1]), Mod: tea.ModCtrl}
	}
	if c, ok := namedKeys[k]; ok {
		return tea.KeyPressMsg{Code: c}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// screen is the frame as plain text (the work tree's path as /WORK),
// and where the cursors are (reverse video does not show in text).
func (w *world) screen() string {
	m := w.m
	lines := strings.Split(ansi.Strip(m.View().Content), "\n")
	if len(lines) > 0 {
		lines[0] = fit(strings.Replace(lines[0], w.dir, "/WORK", 1), m.w)
	}
	for i := range lines {
		// A checkpoint's time is the wall clock's, not the fixture's.
		lines[i] = cpTime.ReplaceAllString(lines[i], "YYYY-MM-DD HH:MM  AGO             after turn")
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	modal := "none"
	if m.modal != nil {
		modal = fmt.Sprint(m.modal.kind)
	}
	return strings.Join(lines, "\n") + fmt.Sprintf("\n---\nfocus=%d cur=%d pcur=%d dtop=%d modal=%s\n", m.focus, m.cur, m.pcur, m.dtop, modal)
}

// golden compares the screen with testdata/name.golden.
func (w *world) golden(name string) {
	w.t.Helper()
	got := w.screen()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			w.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			w.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		w.t.Fatalf("%v (run go test -update to write it)", err)
	}
	if got != string(want) {
		w.t.Errorf("frame %s differs (go test -update rewrites it)\n--- got\n%s--- want\n%s", name, got, want)
	}
}

// file returns the content of p in the work tree ("<absent>" for none).
func (w *world) file(p string) string {
	data, err := os.ReadFile(filepath.Join(w.dir, filepath.FromSlash(p)))
	if err != nil {
		return "<absent>"
	}
	return string(data)
}

// tree is every file of the work tree with its content, for checks
// that nothing changed.
func (w *world) tree() string {
	var b strings.Builder
	filepath.WalkDir(w.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(w.dir, p)
		data, _ := os.ReadFile(p)
		fmt.Fprintf(&b, "%s=%q\n", filepath.ToSlash(rel), data)
		return nil
	})
	return b.String()
}

func resize(wd, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: wd, Height: h} }
