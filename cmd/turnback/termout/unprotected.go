package termout

import (
	"fmt"
	"io"

	"github.com/turnback/turnback"
)

// maxUnprotectedLines bounds the warnings a capture prints about files
// it cannot protect; the rest are counted.
const maxUnprotectedLines = 5

// Unprotected warns, on stderr, about each file over the size limit
// whose content nothing protects (at most 5 lines, then a count), with
// the ways to fix it.
func Unprotected(w io.Writer, files []turnback.Uncaptured) {
	if len(files) == 0 {
		return
	}
	for i, u := range files {
		if i == maxUnprotectedLines {
			fmt.Fprintf(w, "turnback: warning: and %d more unprotected file%s (turnback --json snap lists them under \"unprotected\")\n",
				len(files)-i, Plural(len(files)-i))
			break
		}
		fmt.Fprintf(w, "turnback: warning: %s (%s) is unprotected: over the size limit, and no Git LFS object, git blob or clone holds it; a turn that changes or deletes it cannot be undone\n",
			DisplayPath(u.Path), HumanBytes(u.Size))
	}
	fmt.Fprintln(w, "turnback: to protect it, raise the limit (TURNBACK_SIZE_LIMIT=1G, say) or track it with Git LFS; to stop these warnings, list it in .turnbackignore")
}

// Protection is info's line on how the snapshots' content is kept.
func Protection(w io.Writer, in *turnback.Info) {
	fmt.Fprintf(w, "protected:  %s by copy, %s by reference (Git LFS, git, clones); %s unprotected\n",
		HumanBytes(in.BytesByCopy), HumanBytes(in.BytesByReference), HumanBytes(in.BytesUnprotected))
}

// UnprotectedNote marks a log line of a turn that deleted or changed
// files undo cannot bring back.
func UnprotectedNote(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	names := ""
	for i, p := range paths {
		if i == 3 {
			names += fmt.Sprintf(", +%d more", len(paths)-3)
			break
		}
		if i > 0 {
			names += ", "
		}
		names += DisplayPath(p)
	}
	return fmt.Sprintf("  [changed %d unprotected file%s, not undoable: %s]", len(paths), Plural(len(paths)), names)
}
