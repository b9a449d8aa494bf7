package termout

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"

	"github.com/turnback/turnback"
)

// unified renders one path's difference in git's unified format, and
// whether it is binary (named, not shown).
func Unified(d turnback.FileDiff) (string, bool) {
	if (d.Old != nil && d.Old.Kind == turnback.KindDir) || (d.New != nil && d.New.Kind == turnback.KindDir) {
		if d.Kind == turnback.TypeChanged || d.Kind == turnback.ModeChanged {
			return header(d) + modeLines(d), false
		}
		return "", false
	}
	var b strings.Builder
	b.WriteString(header(d))
	b.WriteString(modeLines(d))
	if d.Kind == turnback.ModeChanged {
		return b.String(), false
	}
	oldText, oldOK := side(d.Old, d.OldData)
	newText, newOK := side(d.New, d.NewData)
	if !oldOK || !newOK {
		fmt.Fprintf(&b, "Binary files %s and %s differ\n", label("a", d.Path, d.Old), label("b", d.Path, d.New))
		return b.String(), true
	}
	b.WriteString(udiff.Unified(label("a", d.Path, d.Old), label("b", d.Path, d.New), oldText, newText))
	return b.String(), false
}

func header(d turnback.FileDiff) string {
	return fmt.Sprintf("diff --turnback %s %s\n", QuotePath("a/"+d.Path), QuotePath("b/"+d.Path))
}

func modeLines(d turnback.FileDiff) string {
	switch {
	case d.Old == nil && d.New != nil:
		return fmt.Sprintf("new file mode %s\n", gitMode(d.New))
	case d.New == nil && d.Old != nil:
		return fmt.Sprintf("deleted file mode %s\n", gitMode(d.Old))
	case gitMode(d.Old) != gitMode(d.New):
		return fmt.Sprintf("old mode %s\nnew mode %s\n", gitMode(d.Old), gitMode(d.New))
	}
	return ""
}

func gitMode(e *turnback.Entry) string {
	switch e.Kind {
	case turnback.KindDir:
		return fmt.Sprintf("04%04o", e.Mode)
	case turnback.KindSymlink:
		return "120000"
	}
	return fmt.Sprintf("10%04o", e.Mode)
}

func label(prefix, p string, e *turnback.Entry) string {
	if e == nil {
		return "/dev/null"
	}
	return QuotePath(prefix + "/" + p)
}

// side returns the text of one side, false if it cannot be shown as text.
func side(e *turnback.Entry, data []byte) (string, bool) {
	switch {
	case e == nil:
		return "", true
	case e.Kind == turnback.KindSymlink:
		// A link target is a name: control bytes are escaped.
		return SafeText(e.Target) + "\n", true
	case e.Kind != turnback.KindFile || e.Uncaptured || (data == nil && e.Size > 0):
		return "", false
	case bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 || !utf8.Valid(data):
		return "", false
	}
	return string(data), true
}
