package cli

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// docBlocks returns the fenced code blocks of a Markdown file whose
// language is one of langs, each as its lines.
func docBlocks(t *testing.T, path string, langs ...string) [][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks [][]string
	var cur []string
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case !in && strings.HasPrefix(line, "```"):
			lang := strings.TrimPrefix(line, "```")
			for _, l := range langs {
				if lang == l {
					in, cur = true, []string{}
				}
			}
		case in && line == "```":
			blocks = append(blocks, cur)
			in = false
		case in:
			cur = append(cur, line)
		}
	}
	return blocks
}

// readmeVolatile matches what changes from run to run in a transcript:
// short snapshot ids and local times.
var readmeVolatile = regexp.MustCompile(`\b[0-9a-f]{12}\b|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d`)

// TestReadmeTranscripts runs every console block of the README with the
// built binary, in a fresh folder, and compares each command's output
// (stdout and stderr) with the README's, ids and times aside.
func TestReadmeTranscripts(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the transcripts are sh sessions")
	}
	blocks := docBlocks(t, filepath.Join("..", "..", "..", "README.md"), "console")
	if len(blocks) == 0 {
		t.Fatal("README.md has no console block")
	}
	bin := testBinary(t)
	root := t.TempDir()
	project := filepath.Join(root, "my-project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"main.go": "package main\n", "notes.txt": "hello\n"} {
		if err := os.WriteFile(filepath.Join(project, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := cliEnviron(root, filepath.Join(root, "xdg"),
		"PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"), "TURNBACK_AUTO_WATCH=0", "NO_COLOR=1")
	for _, block := range blocks {
		dir := root
		for i := 0; i < len(block); {
			line := block[i]
			cmdline, ok := strings.CutPrefix(line, "$ ")
			if !ok {
				t.Fatalf("README console block: output before a command: %q", line)
			}
			var want []string
			for i++; i < len(block) && !strings.HasPrefix(block[i], "$ "); i++ {
				want = append(want, block[i])
			}
			if to, ok := strings.CutPrefix(cmdline, "cd "); ok {
				dir = filepath.Join(dir, to)
				continue
			}
			var out bytes.Buffer
			cmd := exec.CommandContext(t.Context(), "sh", "-c", cmdline)
			cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, &out, &out
			err := cmd.Run()
			if _, exit := err.(*exec.ExitError); err != nil && !exit {
				t.Fatalf("%s: %v", cmdline, err)
			}
			got := readmeVolatile.ReplaceAllString(out.String(), "X")
			wantText := readmeVolatile.ReplaceAllString(strings.Join(want, "\n"), "X")
			if len(want) > 0 {
				wantText += "\n"
			}
			if got != wantText {
				t.Errorf("README: $ %s\ngot:\n%s\nREADME says:\n%s", cmdline, out.String(), strings.Join(want, "\n"))
			}
		}
	}
}

// TestDocsCommandLines parses every turnback command line in the sh
// blocks of the README and docs/ as the CLI would: the command must
// exist, its flags too, and its argument count must be right.
func TestDocsCommandLines(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join("..", "..", "..", "README.md"))
	checked := 0
	for _, f := range files {
		if filepath.Base(f) == "commands.md" {
			continue // generated from the commands themselves
		}
		for _, block := range docBlocks(t, f, "sh", "console") {
			for _, line := range block {
				line = strings.TrimPrefix(line, "$ ")
				if _, after, ok := strings.Cut(line, "&& "); ok {
					line = after
				}
				if c, _, ok := strings.Cut(line, "#"); ok {
					line = c
				}
				line = strings.TrimSuffix(strings.TrimSpace(line), "&")
				args, ok := shellWords(line)
				if !ok || len(args) == 0 || args[0] != "turnback" {
					continue
				}
				checked++
				root := newRootCmd(&globals{stdout: io.Discard, stderr: io.Discard})
				cmd, rest, err := root.Find(args[1:])
				if err == nil {
					err = cmd.ParseFlags(rest)
				}
				if err == nil {
					err = cmd.ValidateArgs(cmd.Flags().Args())
				}
				if err != nil {
					t.Errorf("%s: %s: %v", filepath.Base(f), line, err)
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d command lines found in README.md and docs/", checked)
	}
}

// shellWords splits a command line as sh would for plain words and
// quotes; ok is false for anything else ($, |, ;, >, <).
func shellWords(line string) (words []string, ok bool) {
	var w strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case strings.ContainsRune("$|;><`", r):
			return nil, false
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, true
}
