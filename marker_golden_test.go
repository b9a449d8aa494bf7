package turnback_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/manifest/treetest"
)

// The store marker is the store format's contract: a new store's marker
// is byte for byte testdata/store-markers/new.golden, and a store
// directory holding any of the other recorded markers opens, or is
// refused with nothing written to it.

func markerFixture(t *testing.T, name, workTree string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "store-markers", name))
	if err != nil {
		t.Fatal(err)
	}
	wt, err := json8(workTree)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.ReplaceAll(data, []byte("WORK_TREE"), wt)
}

// json8 is s as the inside of a JSON string.
func json8(s string) ([]byte, error) {
	if strings.ContainsAny(s, "\"\\") {
		return nil, errors.New("test paths hold no quotes or backslashes")
	}
	return []byte(s), nil
}

func TestStoreMarkerGolden(t *testing.T) {
	t.Parallel()
	work, store := t.TempDir(), filepath.Join(t.TempDir(), "store")
	r, err := turnback.Open(t.Context(), work, turnback.Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Snap(t.Context(), "first"); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(store, "turnback-store.json"))
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.EvalSymlinks(work)
	if err != nil {
		t.Fatal(err)
	}
	if want := markerFixture(t, "new.golden", abs); !bytes.Equal(got, want) {
		t.Fatalf("a new store's marker:\n%s\nwant (testdata/store-markers/new.golden):\n%s", got, want)
	}
}

func readMarker(t *testing.T, store string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(store, "turnback-store.json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestStoreMarkers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fixture string
		wantErr string // "" opens; else a substring of the error
		notRepo bool   // the error is ErrNotStore
	}{
		{"v1.json", "", false},
		{"v1-no-work-tree.json", "", false},
		{"v2.json", "", false},
		{"v3.json", "", false},
		{"v4.json", "", false},
		{"v5-newer.json", "has format version 5; this turnback reads up to 4: upgrade turnback", false},
		{"v0.json", "is not turnback's; refusing to write there", true},
		{"foreign-format.json", "is not turnback's; refusing to write there", true},
		{"garbage.json", "is not turnback's; refusing to write there", true},
		{"other-work-tree.json", "belongs to work tree /elsewhere/other-project", false},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			t.Parallel()
			work, store := t.TempDir(), t.TempDir()
			abs, err := filepath.EvalSymlinks(work)
			if err != nil {
				t.Fatal(err)
			}
			marker := markerFixture(t, tt.fixture, abs)
			if err := os.WriteFile(filepath.Join(store, "turnback-store.json"), marker, 0o644); err != nil {
				t.Fatal(err)
			}
			before := treetest.MustRead(t, store)
			r, err := turnback.Open(t.Context(), work, turnback.Options{Store: store})
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("open: %v", err)
				}
				if _, err := r.Snap(t.Context(), "first"); err != nil {
					t.Fatalf("snap: %v", err)
				}
				if err := r.Close(); err != nil {
					t.Fatal(err)
				}
				// A store of an earlier version is marked with this
				// one before anything of this version is written.
				var m struct{ Version int }
				if err := json.Unmarshal(readMarker(t, store), &m); err != nil || m.Version != 4 {
					t.Errorf("marker after a snap: version %d, %v; want 4", m.Version, err)
				}
				return
			}
			if err == nil {
				r.Close()
				t.Fatalf("open succeeded; want an error with %q", tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("open: %v\nwant it to say %q", err, tt.wantErr)
			}
			if got := errors.Is(err, turnback.ErrNotStore); got != tt.notRepo {
				t.Errorf("errors.Is(err, ErrNotStore) = %v, want %v", got, tt.notRepo)
			}
			treetest.Equal(t, "the refused store", treetest.MustRead(t, store), before)
		})
	}
}
