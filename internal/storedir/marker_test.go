package storedir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
)

// listing is every path under dir with its content, to show that
// Inspect wrote nothing.
func listing(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, os.ErrNotExist) && p == dir {
				return filepath.SkipAll
			}
			return err
		}
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			out[p] = string(data)
			return err
		}
		out[p] = d.Type().String()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// put writes files (name -> content; a name ending in / is a directory)
// into dir.
func put(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// marker is a marker of version for work tree /w.
func marker(version int) string {
	return fmt.Sprintf(`{"format": "turnback store", "version": %d, "work_tree": "/w"}`, version)
}

// TestInspect: how Inspect classifies a store directory, and that it
// writes nothing into it.
func TestInspect(t *testing.T) {
	abs := filepath.Join(t.TempDir(), "work")
	for _, c := range []struct {
		name    string
		files   map[string]string // nil: no directory at all
		state   State
		version int   // of the marker, when Marked
		err     error // a sentinel the error wraps
		errText string
	}{
		{name: "absent", state: Absent},
		{name: "empty", files: map[string]string{}, state: Absent},
		{name: "only a daemon's files", files: map[string]string{"watch.log": "x", "watch.sock": "", "api.token": "t", "hook.log": "", "hook.log.1": ""}, state: Absent},
		{name: "an interrupted marker", files: map[string]string{MarkerName + ".123.tmp": "{"}, state: Absent},
		{name: "marked v1", files: map[string]string{MarkerName: marker(1), "db/": ""}, state: Marked, version: 1},
		{name: "marked v3", files: map[string]string{MarkerName: marker(3), "db/": "", "worktree": "/w\n"}, state: Marked, version: 3},
		{name: "marked, beside a daemon's log", files: map[string]string{MarkerName: marker(2), "watch.log": ""}, state: Marked, version: 2},
		{name: "future version", files: map[string]string{MarkerName: marker(FormatVersion + 1)}, errText: "upgrade turnback"},
		{name: "damaged marker", files: map[string]string{MarkerName: `{"format": "turnback st`}, err: model.ErrNotStore},
		{name: "another format", files: map[string]string{MarkerName: `{"format": "other", "version": 1}`}, err: model.ErrNotStore},
		{name: "version 0", files: map[string]string{MarkerName: `{"format": "turnback store", "version": 0}`}, err: model.ErrNotStore},
		{name: "negative version", files: map[string]string{MarkerName: `{"format": "turnback store", "version": -3}`}, err: model.ErrNotStore},
		{name: "version as a string", files: map[string]string{MarkerName: `{"format": "turnback store", "version": "3"}`}, err: model.ErrNotStore},
		{name: "marker a directory", files: map[string]string{MarkerName + "/": ""}, errText: MarkerName},
		{name: "another program's folder", files: map[string]string{"notes.txt": "mine", "src/": ""}, err: model.ErrNotStore, errText: "notes.txt"},
		{name: "legacy, no database yet", files: map[string]string{"worktree": abs + "\n", "db/": "", "watch.log": ""}, state: Legacy},
		{name: "legacy, journal and lock", files: map[string]string{"worktree": abs + "\n", "journal": "", "x.lock": ""}, state: Legacy},
		{name: "legacy, a hook's logs", files: map[string]string{"worktree": abs + "\n", "db/": "", "hook.log": "", "hook.log.1": ""}, state: Legacy},
		{name: "legacy, relative work tree", files: map[string]string{"worktree": "work\n", "db/": ""}, err: model.ErrNotStore},
		{name: "legacy, no work tree", files: map[string]string{"db/": "", "journal": ""}, err: model.ErrNotStore},
		{name: "legacy with a stranger's file", files: map[string]string{"worktree": abs + "\n", "db/": "", "photo.jpg": ""}, err: model.ErrNotStore, errText: `"photo.jpg"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "store")
			if c.files != nil {
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				put(t, dir, c.files)
			}
			before := listing(t, dir)
			st, m, err := Inspect(t.Context(), dir)
			if after := listing(t, dir); !mapsEqual(before, after) {
				t.Errorf("Inspect wrote: %v -> %v", before, after)
			}
			if c.err != nil || c.errText != "" {
				if err == nil {
					t.Fatalf("Inspect: %v %+v, want an error", st, m)
				}
				if c.err != nil && !errors.Is(err, c.err) {
					t.Errorf("Inspect: %v, want %v", err, c.err)
				}
				if !strings.Contains(err.Error(), c.errText) || !strings.Contains(err.Error(), dir) {
					t.Errorf("Inspect: %q names neither %q nor %s", err, c.errText, dir)
				}
				return
			}
			if err != nil || st != c.state {
				t.Fatalf("Inspect: %v %v, want %v", st, err, c.state)
			}
			if (m != nil) != (st == Marked) {
				t.Fatalf("Inspect: %v with marker %+v", st, m)
			}
			if m != nil && (m.Version != c.version || m.WorkTree != "/w") {
				t.Errorf("marker %+v, want version %d of /w", m, c.version)
			}
		})
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestInspectLegacyDatabase: a legacy store's database is turnback's
// when it holds turnback's metadata (or nothing); one holding only
// other keys is another program's.
func TestInspectLegacyDatabase(t *testing.T) {
	for _, c := range []struct {
		name string
		keys []string
		want error
	}{
		{"empty database", nil, nil},
		{"turnback's records", []string{"b/xyz", "m/session/default"}, nil},
		{"another program's", []string{"user:1", "user:2"}, model.ErrNotStore},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			put(t, dir, map[string]string{"worktree": "/gone/work\n"})
			b, err := cas.OpenBadger(t.Context(), filepath.Join(dir, "db"), cas.BadgerOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range c.keys {
				if err := b.Set(t.Context(), cas.Entry{Key: []byte(k), Value: []byte("v")}); err != nil {
					t.Fatal(err)
				}
			}
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
			st, _, err := Inspect(t.Context(), dir)
			if c.want == nil && (err != nil || st != Legacy) {
				t.Fatalf("Inspect: %v %v, want Legacy", st, err)
			}
			if c.want != nil && !errors.Is(err, c.want) {
				t.Fatalf("Inspect: %v %v, want %v", st, err, c.want)
			}
		})
	}
}

// TestWriteMarker: a written marker is what Inspect reads back, the
// work tree exactly (base64 beside a display form when it is not
// UTF-8), and no temporary file stays.
func TestWriteMarker(t *testing.T) {
	for _, wt := range []string{"/home/u/proj", "/tmp/ü \"q\" \\ x", "/tmp/\xff\xfe-latin1"} {
		dir := t.TempDir()
		if err := WriteMarker(dir, wt); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(dir, "db"), 0o755); err != nil {
			t.Fatal(err)
		}
		st, m, err := Inspect(t.Context(), dir)
		if err != nil || st != Marked {
			t.Fatalf("%q: Inspect %v %v", wt, st, err)
		}
		if m.ExactWorkTree() != wt || m.Version != FormatVersion || m.Format != markerFormat {
			t.Errorf("%q: marker %+v", wt, m)
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if !slices.Equal(names, []string{"db", MarkerName}) {
			t.Errorf("%q: the store holds %v", wt, names)
		}
		data, err := os.ReadFile(filepath.Join(dir, MarkerName))
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(data) || !bytes.HasSuffix(data, []byte("}\n")) {
			t.Errorf("%q: marker %q", wt, data)
		}
	}
}
