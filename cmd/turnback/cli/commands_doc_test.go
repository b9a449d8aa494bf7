package cli

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnback/turnback/cmd/turnback/help"
)

var updateCommandsDoc = flag.Bool("update-commands-doc", false, "rewrite docs/commands.md from the help texts")

// commandsDoc is the command reference generated from the cobra tree.
var commandsDoc = filepath.Join("..", "..", "..", "docs", "commands.md")

// TestCommandsDocDrift fails when docs/commands.md is not what the help
// texts and flags render to. "go generate ./cmd/turnback/cli" rewrites it.
func TestCommandsDocDrift(t *testing.T) {
	root := newRootCmd(&globals{stdout: io.Discard, stderr: io.Discard})
	want := help.Markdown(root)
	if *updateCommandsDoc {
		if err := os.WriteFile(commandsDoc, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(commandsDoc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("docs/commands.md differs from the help texts: run go generate ./cmd/turnback/cli\n%s", firstDiff(got, want))
	}
}

// firstDiff names the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl []byte
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if !bytes.Equal(gl, wl) {
			return fmt.Sprintf("line %d:\n  docs: %s\n  help: %s", i+1, gl, wl)
		}
	}
	return ""
}
