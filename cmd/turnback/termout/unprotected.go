package termout

import (
	"fmt"
	"io"
	"strings"

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
// files undo cannot bring back, or made new directories it did not
// capture (their paths end in "/", see turnback.Repo.UnprotectedChanges).
func UnprotectedNote(all []string) string {
	var paths, dirs []string
	for _, p := range all {
		if strings.HasSuffix(p, "/") {
			dirs = append(dirs, p)
		} else {
			paths = append(paths, p)
		}
	}
	note := ""
	if len(dirs) > 0 {
		names := make([]string, len(dirs))
		for i, d := range dirs {
			names[i] = QuotePath(strings.TrimSuffix(d, "/")) + "/"
		}
		note = fmt.Sprintf("  [made %d new director%s not captured, not undoable: %s]", len(dirs),
			map[bool]string{true: "y", false: "ies"}[len(dirs) == 1], strings.Join(names, ", "))
	}
	if len(paths) == 0 {
		return note
	}
	return note + unprotectedFiles(paths)
}

// unprotectedFiles is UnprotectedNote of files.
func unprotectedFiles(paths []string) string {
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

// NewUncapturedDirs warns, on stderr, about each directory a capture
// first left uncaptured (a new directory of TURNBACK_LARGE_DIR_FILES
// files or more: at most 5 lines, then a count), and what to do.
func NewUncapturedDirs(w io.Writer, list []turnback.Uncaptured) {
	var dirs []turnback.Uncaptured
	for _, u := range list {
		if u.New && u.Kind == "dir" {
			dirs = append(dirs, u)
		}
	}
	if len(dirs) == 0 {
		return
	}
	for i, u := range dirs {
		if i == maxUnprotectedLines {
			fmt.Fprintf(w, "turnback: warning: and %d more new director%s not captured (turnback --json snap lists them under \"uncaptured\", \"new\": true)\n",
				len(dirs)-i, map[bool]string{true: "y", false: "ies"}[len(dirs)-i == 1])
			break
		}
		fmt.Fprintf(w, "turnback: warning: %s/ is a new directory with %d file%s: not captured (TURNBACK_LARGE_DIR_FILES), so undo can neither remove nor bring it back\n",
			DisplayPath(u.Path), u.Files, Plural(int(u.Files)))
	}
	fmt.Fprintf(w, "turnback: if a turn made it by mistake, delete it yourself (rm -r %s); to capture new directories this large, raise TURNBACK_LARGE_DIR_FILES (it stays uncaptured while it exists); if it is generated, list it in .turnbackignore\n",
		shellPath(dirs[0].Path))
}

// shellPath is p for a command line to copy: quoted for a shell, or as
// QuotePath shows it when it holds what a terminal must not get.
func shellPath(p string) string {
	if QuotePath(p) != p {
		return QuotePath(p)
	}
	return ShellQuote(p)
}
