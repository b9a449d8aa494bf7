package termout

import (
	"fmt"
	"io"

	"github.com/turnback/turnback/cas"
)

// LogSalvaged writes what an open did with a damaged write log: kept
// the frames that check out, moved the log aside.
func LogSalvaged(w io.Writer, s *cas.LogSalvage) {
	fmt.Fprintf(w, "repaired a damaged %s\n", SafeText(s.Damage))
	fmt.Fprintf(w, "  kept the %d frames that check out; the damaged log is kept, whole, in %s\n", s.Frames, SafeText(s.MovedTo))
	if s.Recapture != "" {
		fmt.Fprintf(w, "  could not store the folder again: %s\n", SafeText(s.Recapture))
	} else {
		fmt.Fprintln(w, "  stored again what the folder still holds of it")
	}
	for _, r := range s.Damaged {
		fmt.Fprintf(w, "  not recovered: bytes %d to %d (%s)\n", r.Offset, r.Offset+r.Length, SafeText(r.Why))
	}
}
