package agent

import (
	"bytes"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestCommandFrontMatterIsYAML: every Markdown command or skill file an
// agent gets starts with front matter that a strict YAML parser reads,
// and its description is the summary, unchanged. Copilot CLI skips a
// skill whose front matter is not YAML; other clients may do the same.
// commandCases: each command, with plain and hostile binary paths (a
// quoted path with ": " and " #" in it, as a hook's command line has it).
var commandCases = func() (cs []struct{ name, bin string }) {
	for _, name := range Commands {
		for _, bin := range []string{"/usr/local/bin/turnback", `'/tmp/my dir: x #1/turnback'`} {
			cs = append(cs, struct{ name, bin string }{name, bin})
		}
	}
	return cs
}()

func TestCommandFrontMatterIsYAML(t *testing.T) {
	for _, a := range All() {
		if a.commandFile == nil {
			continue
		}
		for _, c := range commandCases {
			name := c.name
			file, data := a.commandFile(name, c.bin)
			if !strings.HasSuffix(file, ".md") {
				continue
			}
			rest, ok := bytes.CutPrefix(data, []byte("---\n"))
			front, _, ok2 := bytes.Cut(rest, []byte("\n---\n"))
			if !ok || !ok2 {
				t.Errorf("%s %s: no front matter:\n%s", a.Name, file, data)
				continue
			}
			var doc map[string]any
			if err := yaml.Unmarshal(front, &doc); err != nil {
				t.Errorf("%s %s: front matter is not YAML: %v\n%s", a.Name, file, err, front)
				continue
			}
			if tools, ok := doc["allowed-tools"]; ok && tools != "Bash("+c.bin+":*)" {
				t.Errorf("%s %s: allowed-tools %q, want %q", a.Name, file, tools, "Bash("+c.bin+":*)")
			}
			desc, _ := doc["description"].(string)
			if !strings.HasPrefix(desc, strings.SplitN(commandSummary[name], " (", 2)[0]) {
				t.Errorf("%s %s: description %q, want it to start as %q", a.Name, file, desc, commandSummary[name])
			}
		}
	}
}
