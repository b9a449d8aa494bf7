package remote

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/turnback/turnback/cmd/turnback/termout"
	s3remote "github.com/turnback/turnback/internal/remote"
)

var updateColorGolden = flag.Bool("update-color-golden", false, "rewrite testdata/color/*.golden")

// ansi matches the colour codes termout writes.
var ansi = regexp.MustCompile("\033\\[[0-9;]*m")

// TestColorGoldenPull: with colour on, pull's report names the session
// and the turns' numbers in the colours log and sessions give them, as
// in the golden files (termout's TestColorGolden for the other
// commands); with colour off it writes the same text without any code.
func TestColorGoldenPull(t *testing.T) {
	state := "dc770fff53f5aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	for _, c := range []struct {
		name     string
		res      s3remote.PullResult
		applying bool
	}{
		{"pull-pending", s3remote.PullResult{Session: "s1", Turns: 3, Objects: 7, BytesReceived: 2048,
			Pending: &s3remote.Pending{Turns: []int{2, 3, 4}, State: state, Newest: 4, AtNewest: true}}, false},
		{"pull-apply", s3remote.PullResult{Session: "s1", Turns: 2, Objects: 7, BytesReceived: 2048,
			Pending: &s3remote.Pending{Turns: []int{2, 5}, State: state, Newest: 5}}, true},
		{"pull-one", s3remote.PullResult{Session: "s1", Turns: 1, Objects: 1, BytesReceived: 10,
			Pending: &s3remote.Pending{Turns: []int{3}, State: state}}, false},
		{"pull-nothing", s3remote.PullResult{Session: "s1", NothingNew: true}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			colored, plain := pulledText(&c.res, "turnback", c.applying, true), pulledText(&c.res, "turnback", c.applying, false)
			golden := filepath.Join("testdata", "color", c.name+".golden")
			if *updateColorGolden {
				if err := os.WriteFile(golden, []byte(colored), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil || colored != string(want) {
				t.Errorf("colour on (want %s, -update-color-golden rewrites it; %v):\n%q\nwant\n%q", golden, err, colored, want)
			}
			if ansi.FindString(plain) != "" {
				t.Errorf("colour off writes codes: %q", plain)
			}
			if got := ansi.ReplaceAllString(colored, ""); got != plain {
				t.Errorf("colour changes the text:\n%q\nplain\n%q", got, plain)
			}
			if colored == plain {
				t.Errorf("colour on writes no colour: %q", colored)
			}
		})
	}
	if got := termout.Paint(true, termout.SessionColor, "s1"); got != "\033[1ms1\033[0m" {
		t.Errorf("SessionColor: %q", got)
	}
}
