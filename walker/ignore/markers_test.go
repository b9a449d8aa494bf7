package ignore

import (
	"io/fs"
	"slices"
	"testing"
)

// askDir is a Dir holding nothing that notes every name asked for.
type askDir struct{ asked []string }

func (d *askDir) Lookup(name string) (fs.FileMode, bool) {
	d.asked = append(d.asked, name)
	return 0, false
}

func (d *askDir) Head(name string, n int) []byte {
	d.asked = append(d.asked, name)
	return nil
}

// TestMarkerNames: Evidence asks a directory for no name MarkerNames
// leaves out, for every probe and every name with markers of its own.
func TestMarkerNames(t *testing.T) {
	names := []string{"src", "x"}
	for n := range nameMarkers {
		names = append(names, n)
	}
	for _, p := range []Probe{ProbeNone, ProbeTag, ProbeName} {
		for _, name := range names {
			d := &askDir{}
			Evidence(name, p, d)
			want := MarkerNames(name, p)
			for _, a := range d.asked {
				if !slices.Contains(want, a) {
					t.Errorf("Evidence(%q, %d) asked for %q, MarkerNames gave %q", name, p, a, want)
				}
			}
			if len(d.asked) != len(want) {
				t.Errorf("Evidence(%q, %d) asked for %q, MarkerNames gave %q", name, p, d.asked, want)
			}
		}
	}
}
