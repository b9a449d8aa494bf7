package handoff

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadChecks(t *testing.T) {
	const wt = "/work/tree"
	good := Doc{WorkTree: wt, Daemon: os.Getpid(), Root: "r", SizeLimit: 10, LargeDirFiles: 5, Early: []string{"a"}}
	tests := []struct {
		name string
		edit func(d *Doc)
		raw  string // written as is instead of the doc
		want string // "" for ok, else the error
	}{
		{name: "ok", edit: func(*Doc) {}},
		{name: "other process", edit: func(d *Doc) { d.Daemon = -1 }, want: "no handoff: it is for process -1"},
		{name: "other work tree", edit: func(d *Doc) { d.WorkTree = "/x" }, want: "no handoff: it is for /x"},
		{name: "size limit", edit: func(d *Doc) { d.SizeLimit = 11 }, want: "no handoff: capture settings (size limit or large-directory rule) differ"},
		{name: "large dirs", edit: func(d *Doc) { d.LargeDirFiles = 6 }, want: "no handoff: capture settings (size limit or large-directory rule) differ"},
		{name: "too many", edit: func(d *Doc) { d.Early = make([]string, MaxDirs+1) }, want: "no handoff: 65537 directories listed too early"},
		{name: "version", raw: `{"version":1}`, want: "no handoff: version 1"},
		{name: "not json", raw: `{`, want: "no handoff: STORE/watch-handoff: unexpected end of JSON input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.raw != "" {
				if err := os.WriteFile(filepath.Join(dir, Name), []byte(tt.raw), 0o600); err != nil {
					t.Fatal(err)
				}
			} else {
				d := good
				tt.edit(&d)
				Write(dir, d)
			}
			got, err := Read(dir, wt, 10, 5)
			if _, statErr := os.Stat(filepath.Join(dir, Name)); !errors.Is(statErr, os.ErrNotExist) {
				t.Errorf("the file is still there after Read: %v", statErr)
			}
			if tt.want != "" {
				if err == nil || !errors.Is(err, ErrNone) || strings.ReplaceAll(err.Error(), dir, "STORE") != tt.want {
					t.Fatalf("Read: %v, want %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Version != Version || got.Root != "r" || len(got.Early) != 1 || got.Early[0] != "a" {
				t.Fatalf("Read = %+v", got)
			}
		})
	}
	if _, err := Read(t.TempDir(), wt, 10, 5); err == nil || err.Error() != "no handoff: the command left none" {
		t.Fatalf("Read of none: %v", err)
	}
}

func TestRemove(t *testing.T) {
	dir := t.TempDir()
	Write(dir, Doc{})
	Remove(dir)
	if _, err := os.Stat(filepath.Join(dir, Name)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("after Remove: %v", err)
	}
	Remove(dir) // none: no panic, nothing to report
}

// FuzzRead checks that any handoff file is either refused with ErrNone
// or read, and is removed either way.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"version":2,"work_tree":"/w","daemon_pid":1,"early":["a"]}`))
	f.Add([]byte(`{"version":2,"early":null,"totals":"AAE="}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, Name), data, 0o600); err != nil {
			t.Fatal(err)
		}
		doc, err := Read(dir, "/w", 0, 0)
		if err != nil && !errors.Is(err, ErrNone) {
			t.Fatalf("error not ErrNone: %v", err)
		}
		if err == nil && (doc.Version != Version || len(doc.Early) > MaxDirs) {
			t.Fatalf("accepted %+v", doc)
		}
		if _, err := os.Stat(filepath.Join(dir, Name)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the file is still there: %v", err)
		}
	})
}
