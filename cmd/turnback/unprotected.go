package main

import (
	"fmt"

	"github.com/turnback/turnback"
)

// exitIncomplete: an undo, redo or restore did what it could but left
// paths not restorable (listed).
const exitIncomplete = 5

// maxUnprotectedLines bounds the warnings a capture prints about files
// it cannot protect; the rest are counted.
const maxUnprotectedLines = 5

// reportUnprotected warns, on stderr, about each file over the size limit
// whose content nothing protects (at most 5 lines, then a count), with
// the ways to fix it.
func (g *globals) reportUnprotected(files []turnback.Uncaptured) {
	if len(files) == 0 {
		return
	}
	for i, u := range files {
		if i == maxUnprotectedLines {
			fmt.Fprintf(g.stderr, "turnback: warning: and %d more unprotected file%s (turnback --json snap lists them under \"unprotected\")\n",
				len(files)-i, plural(len(files)-i))
			break
		}
		fmt.Fprintf(g.stderr, "turnback: warning: %s (%s) is unprotected: over the size limit, and no Git LFS object, git blob or clone holds it; a turn that changes or deletes it cannot be undone\n",
			displayPath(u.Path), humanBytes(u.Size))
	}
	fmt.Fprintln(g.stderr, "turnback: to protect it, raise the limit (TURNBACK_SIZE_LIMIT=1G, say) or track it with Git LFS; to stop these warnings, list it in .turnbackignore")
}

// incompleteFailure is the outcome of a restore that left paths not
// restorable: exit 5, its document in --json.
type incompleteFailure struct {
	res *turnback.RestoreResult
}

func (f incompleteFailure) Error() string {
	n := len(f.res.Unrestored())
	return fmt.Sprintf("turnback: incomplete: %d path%s could not be restored (marked not restored); everything else is done", n, plural(n))
}

func (f incompleteFailure) jsonDoc() map[string]any { return restoreDoc(f.res) }

// incomplete maps a restore that left paths not restorable to exit 5.
func incomplete(res *turnback.RestoreResult) error {
	if res == nil || res.Nothing || !res.Incomplete() {
		return nil
	}
	return codedError{code: exitIncomplete, err: incompleteFailure{res: res}}
}

// printProtection is info's line on how the snapshots' content is kept.
func printProtection(g *globals, in *turnback.Info) {
	fmt.Fprintf(g.stdout, "protected:  %s by copy, %s by reference (Git LFS, git, clones); %s unprotected\n",
		humanBytes(in.BytesByCopy), humanBytes(in.BytesByReference), humanBytes(in.BytesUnprotected))
}

// unprotectedNote marks a log line of a turn that deleted or changed
// files undo cannot bring back.
func unprotectedNote(paths []string) string {
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
		names += displayPath(p)
	}
	return fmt.Sprintf("  [changed %d unprotected file%s, not undoable: %s]", len(paths), plural(len(paths)), names)
}
