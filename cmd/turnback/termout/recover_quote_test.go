package termout

import (
	"bytes"
	"strings"
	"testing"

	"github.com/turnback/turnback"
)

// TestRecoverQuotesPaths: recover's summary prints hostile names quoted,
// as every other list does, so a name cannot move the cursor or clear
// the user's screen.
func TestRecoverQuotesPaths(t *testing.T) {
	const hostile = "a\x1b[2Jb"
	res := &turnback.RecoverResult{Found: true, RolledBack: true,
		Restored: []string{hostile}, Deleted: []string{"plain.txt"}, Created: []string{"new\nline"},
		Kept: []turnback.PathNote{{Path: hostile, Reason: "edited\x1b[31m meanwhile"}}}
	var b bytes.Buffer
	Recover(&b, res)
	got := b.String()
	if strings.ContainsAny(got, "\x1b") {
		t.Errorf("recover printed an escape: %q", got)
	}
	want := "rolled back the interrupted operation: 1 restored, 1 deleted, 1 brought back\n" +
		"  M " + QuotePath(hostile) + "\n" +
		"  D plain.txt\n" +
		"  A " + QuotePath("new\nline") + "\n" +
		"  not restored: " + QuotePath(hostile) + " (" + SafeText("edited\x1b[31m meanwhile") + ")\n"
	if got != want {
		t.Errorf("recover summary:\n got %q\nwant %q", got, want)
	}
}
