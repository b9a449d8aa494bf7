package termout

import (
	"fmt"

	"github.com/turnback/turnback"
)

// PartialLine says that a restore went to an undo's or redo's state,
// which holds the folder's content only at its paths, and so put back
// those alone; "" for a whole state.
func PartialLine(p *turnback.PartialState) string {
	if p == nil {
		return ""
	}
	of := "state of an undo or redo"
	if p.Of != "" {
		of = "checkpoint of " + SafeText(p.Of)
	}
	n := len(p.Paths)
	return fmt.Sprintf("%s: restoring only the %d path%s it holds; other paths stay as they are", of, n, Plural(n))
}
