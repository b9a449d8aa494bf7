package storedir

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/turnback/turnback/internal/model"
)

// FuzzParseMarker: any bytes in turnback-store.json are refused as not
// turnback's (ErrNotStore), refused as a newer format, or accepted as a
// marker of a version this turnback reads, which then writes back as
// the same marker. It never panics.
func FuzzParseMarker(f *testing.F) {
	for _, s := range []string{
		`{"format": "turnback store", "version": 3, "work_tree": "/w"}`,
		`{"format": "turnback store", "version": 1, "work_tree": "/w", "work_tree_bytes": "L3f/"}`,
		`{"format": "turnback store", "version": 9}`,
		`{"format": "turnback store", "version": 0}`,
		`{"format": "turnback store", "version": 2.5}`,
		`{"format": "other"}`,
		`{"format": "turnback store", "version": 3, "work_tree_bytes": "!!"}`,
		`{"Format": "turnback store", "VERSION": 3}`,
		`{"format": "turnback store", "version": 3, "work_tree_bytes": ""}`,
		`[]`, `null`, ``, `{`, "\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parseMarker("/s", data)
		if err != nil {
			if m != nil {
				t.Fatalf("marker %+v with error %v", m, err)
			}
			if !errors.Is(err, model.ErrNotStore) && !strings.Contains(err.Error(), "upgrade turnback") {
				t.Fatalf("error %v is neither ErrNotStore nor a newer format", err)
			}
			if !strings.Contains(err.Error(), "/s") {
				t.Fatalf("error %v does not name the store", err)
			}
			return
		}
		if m.Format != markerFormat || m.Version < 1 || m.Version > FormatVersion {
			t.Fatalf("accepted %+v", m)
		}
		again, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		m2, err := parseMarker("/s", again)
		if err != nil || m2.Format != m.Format || m2.Version != m.Version || m2.WorkTree != m.WorkTree || m2.ExactWorkTree() != m.ExactWorkTree() {
			t.Fatalf("%+v written back reads as %+v, %v", m, m2, err)
		}
	})
}
