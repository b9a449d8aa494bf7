package turnback_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback"
)

// Example_docs is the Go snippet of docs/api.md, compiled here so that it
// keeps up with the API. It is not run: it names a folder that does not
// exist. TestDocsGoBlocks checks that the page still shows this code.
func Example_docs() {
	ctx := context.Background()
	repo, err := turnback.Open(ctx, "/path/to/project", turnback.Options{Session: "agent-1"})
	if err != nil {
		log.Fatal(err)
	}
	defer repo.Close()
	repo.Snap(ctx, "refactor parser") // before the turn
	// ... the agent edits files ...
	repo.End(ctx) // after it
	res, err := repo.Undo(ctx, 1, turnback.UndoOptions{})
	var conflict *turnback.ConflictError
	switch {
	case errors.As(err, &conflict): // edited since the turn: nothing changed
		fmt.Println("edited since:", conflict.Result.Conflicts)
	case err != nil:
		log.Fatal(err)
	default:
		fmt.Println("restored", res.Restored, "deleted", res.Deleted)
	}
}

// TestDocsGoBlocks checks that every go block of the README and docs/
// is code of this file, which the compiler checks.
func TestDocsGoBlocks(t *testing.T) {
	src, err := os.ReadFile("example_docs_test.go")
	if err != nil {
		t.Fatal(err)
	}
	code := dedent(string(src))
	files, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := 0
	for _, f := range append(files, "README.md") {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, part := range strings.Split(string(data), "```go\n")[1:] {
			block, _, ok := strings.Cut(part, "```\n")
			if !ok {
				t.Fatalf("%s: a go block without its end", f)
			}
			blocks++
			if !strings.Contains(code, dedent(block)) {
				t.Errorf("%s: this go block is not in example_docs_test.go, so no compiler checks it:\n%s", f, block)
			}
		}
	}
	if blocks == 0 {
		t.Fatal("no go block in README.md and docs/")
	}
}

// dedent drops the leading tabs of every line.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimLeft(l, "\t")
	}
	return strings.Join(lines, "\n")
}
