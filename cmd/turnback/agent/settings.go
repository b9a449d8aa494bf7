package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// hookEntry is one hook as the agents' settings files spell it.
type hookEntry struct {
	Name    string `json:"name,omitempty"`
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// elementFor is what init appends to the event's list of hooks.
func (a *Agent) elementFor(event, command string) any {
	if a.element != nil {
		return a.element(event, command)
	}
	return map[string]any{"hooks": []hookEntry{a.entry(command)}}
}

// baseFile is the file init starts from when there is none, and the one
// whose bytes mean "nothing but what init made" on removal.
func (a *Agent) baseFile() []byte {
	if a.version != 0 {
		return fmt.Appendf(nil, "{\n  \"version\": %d\n}\n", a.version)
	}
	return []byte("{}\n")
}

// isTurnbackCommand: command, or another turnback's "hook <agent>".
func isTurnbackCommand(c, agent, command string) bool {
	c = strings.TrimSpace(c)
	return c == command || (strings.Contains(c, "turnback") && strings.HasSuffix(c, " hook "+agent))
}

// commandsIn collects the command lines of a hook element: every string
// under "command", "bash" or "powershell", at any depth.
func commandsIn(v any, out []string) []string {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && (k == "command" || k == "bash" || k == "powershell") {
				out = append(out, s)
			} else {
				out = commandsIn(x, out)
			}
		}
	case []any:
		for _, x := range v {
			out = commandsIn(x, out)
		}
	}
	return out
}

// isTurnbacks reports whether an element of an event's list runs
// turnback's hook for the agent, and nothing else.
func (a *Agent) isTurnbacks(d *jdoc, n *jnode, command string) bool {
	var v any
	if json.Unmarshal(d.clean[n.start:n.end], &v) != nil {
		return false
	}
	cmds := commandsIn(v, nil)
	for _, c := range cmds {
		if !isTurnbackCommand(c, a.Name, command) {
			return false
		}
	}
	return len(cmds) > 0
}

// edit replaces src[at:end] with text.
type edit struct {
	at, end int
	text    string
}

func apply(src []byte, edits []edit) []byte {
	slices.SortFunc(edits, func(x, y edit) int { return y.at - x.at })
	out := bytes.Clone(src)
	for _, e := range edits {
		out = slices.Concat(out[:e.at], []byte(e.text), out[e.end:])
	}
	return out
}

// indentUnit is the file's indentation step: that of its first nested
// line ("  " when it has none).
func indentUnit(d *jdoc) string {
	for _, m := range d.root.members {
		if ind, ok := lineIndent(d.src, m.keyStart); ok && ind != "" {
			return ind
		}
	}
	return "  "
}

// lineIndent is the white space that begins pos's line, and whether
// only white space precedes pos on it.
func lineIndent(src []byte, pos int) (string, bool) {
	start := bytes.LastIndexByte(src[:pos], '\n') + 1
	lead := src[start:pos]
	trimmed := bytes.TrimLeft(lead, " \t")
	ind := string(lead[:len(lead)-len(bytes.TrimLeft(lead, " \t"))])
	return ind, len(trimmed) == 0
}

// appendItem returns the edit that adds text (an element, or "key":
// value) at the end of the object or array n; its items are indented
// one unit more than n's line.
func appendItem(d *jdoc, n *jnode, unit string, item func(indent string) string) []edit {
	base, _ := lineIndent(d.src, n.start)
	ind := base + unit
	last := -1
	if n.kind == '{' && len(n.members) > 0 {
		last = n.members[len(n.members)-1].val.end
		if i, ok := lineIndent(d.src, n.members[len(n.members)-1].keyStart); ok {
			ind = i
		}
	} else if n.kind == '[' && len(n.elems) > 0 {
		e := n.elems[len(n.elems)-1]
		last = e.end
		if i, ok := lineIndent(d.src, e.start); ok {
			ind = i
		}
	}
	if last < 0 {
		return []edit{{n.start + 1, n.start + 1, "\n" + ind + item(ind) + "\n" + base}}
	}
	if nl := trailingComment(d.src, last); nl >= 0 {
		// The comment stays on its item's line: the comma goes before
		// it, the new item on a line after it.
		return []edit{{last, last, ","}, {nl, nl, "\n" + ind + item(ind)}}
	}
	return []edit{{last, last, ",\n" + ind + item(ind)}}
}

// trailingComment: when pos is followed on its line by comments and
// nothing else, the position of the line's end; otherwise -1.
func trailingComment(src []byte, pos int) int {
	seen := false
	for pos < len(src) {
		switch {
		case src[pos] == ' ' || src[pos] == '\t' || src[pos] == '\r':
			pos++
		case src[pos] == '\n':
			if seen {
				return pos
			}
			return -1
		case bytes.HasPrefix(src[pos:], []byte("//")):
			nl := bytes.IndexByte(src[pos:], '\n')
			if nl < 0 {
				return -1
			}
			pos, seen = pos+nl, true
		case bytes.HasPrefix(src[pos:], []byte("/*")):
			end := bytes.Index(src[pos:], []byte("*/"))
			if end < 0 || bytes.IndexByte(src[pos:pos+end], '\n') >= 0 {
				return -1
			}
			pos, seen = pos+end+2, true
		default:
			return -1
		}
	}
	return -1
}

// marshal is v as JSON indented for a line that starts with indent.
func marshal(v any, indent, unit string) string {
	b, _ := json.MarshalIndent(v, indent, unit)
	return string(b)
}

// removeItems returns the edits that cut the items of n (members or
// elements) for which cut is true, with the separators between them,
// so that a cut of what appendItem added restores the bytes before it.
func removeItems(src []byte, n *jnode, cut []bool) []edit {
	type span struct{ start, end int }
	var items []span
	for _, m := range n.members {
		items = append(items, span{m.keyStart, m.val.end})
	}
	for _, e := range n.elems {
		items = append(items, span{e.start, e.end})
	}
	var edits []edit
	for a := 0; a < len(items); a++ {
		if !cut[a] {
			continue
		}
		b := a
		for b+1 < len(items) && cut[b+1] {
			b++
		}
		switch {
		case a > 0:
			p := items[a-1].end
			if nl := trailingComment(src, p+1); p < len(src) && src[p] == ',' && nl >= 0 && nl < items[a].start {
				// appendItem's two edits, after a comment.
				edits = append(edits, edit{p, p + 1, ""}, edit{nl, items[b].end, ""})
				break
			}
			edits = append(edits, edit{p, items[b].end, ""})
		case b < len(items)-1:
			edits = append(edits, edit{items[a].start, items[b+1].start, ""})
		default: // all of them: undo appendItem's first item
			start, end := items[a].start, items[b].end
			if len(bytes.TrimSpace(src[n.start+1:start])) == 0 {
				start = n.start + 1
				if base, _ := lineIndent(src, n.start); bytes.HasPrefix(src[end:], []byte("\n"+base)) {
					end += 1 + len(base)
				}
			}
			edits = append(edits, edit{start, end, ""})
		}
		a = b
	}
	return edits
}

// settingsError: a settings file init cannot edit; it was left
// untouched, and the message says what to add by hand.
func (a *Agent) settingsError(path, why, command string) error {
	hooks := map[string][]any{}
	for _, ev := range a.Events {
		hooks[ev] = []any{a.elementFor(ev, command)}
	}
	snippet, _ := json.Marshal(map[string]any{"hooks": hooks})
	return fmt.Errorf("turnback init: %s: %s; it was left untouched. Fix it and run init again, or merge turnback's hooks into it by hand: %s", path, why, snippet)
}

// structure checks what init edits: an object whose "hooks", if there,
// is an object whose lists for the agent's events, if there, are lists.
func (a *Agent) structure(d *jdoc) string {
	if d.root.kind != '{' {
		return "the settings are not a JSON object"
	}
	hooks := d.root.get("hooks")
	if hooks == nil {
		return ""
	}
	if hooks.kind != '{' {
		return `"hooks" is not a JSON object`
	}
	for _, ev := range a.Events {
		if l := hooks.get(ev); l != nil && l.kind != '[' {
			return fmt.Sprintf("hooks.%s is not a list", ev)
		}
	}
	return ""
}

// read returns the settings file's bytes (those of baseFile when it does
// not exist or is empty), parsed, and its mode.
func (a *Agent) read(path, command string) ([]byte, *jdoc, os.FileMode, error) {
	mode := os.FileMode(0o644)
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		data = a.baseFile()
	case err != nil:
		return nil, nil, 0, fmt.Errorf("turnback init: %w", err)
	default:
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = a.baseFile()
	}
	d, err := parseJSONC(data)
	if err != nil {
		return nil, nil, 0, a.settingsError(path, "not valid JSON ("+err.Error()+")", command)
	}
	if why := a.structure(d); why != "" {
		return nil, nil, 0, a.settingsError(path, why, command)
	}
	return data, d, mode, nil
}

// install adds turnback's hook (running command) for every event of the
// agent that has none to the settings file at path, and reports whether
// it changed.
func (a *Agent) install(path, command string) (bool, error) {
	data, d, mode, err := a.read(path, command)
	if err != nil {
		return false, err
	}
	unit := indentUnit(d)
	hooks := d.root.get("hooks")
	var edits []edit
	var newEvents []string
	for _, ev := range a.Events {
		l := (*jnode)(nil)
		if hooks != nil {
			l = hooks.get(ev)
		}
		if l == nil {
			newEvents = append(newEvents, ev)
			continue
		}
		if slices.ContainsFunc(l.elems, func(n *jnode) bool { return a.isTurnbacks(d, n, command) }) {
			continue
		}
		edits = append(edits, appendItem(d, l, unit, func(ind string) string { return marshal(a.elementFor(ev, command), ind, unit) })...)
	}
	// New lists, in the agent's order: as members of "hooks", or of a new
	// "hooks" at the end of the file.
	member := func(ev string) func(string) string {
		return func(ind string) string {
			return fmt.Sprintf("%q: [\n%s%s%s\n%s]", ev, ind, unit, marshal(a.elementFor(ev, command), ind+unit, unit), ind)
		}
	}
	if hooks != nil {
		for _, ev := range newEvents {
			edits = append(edits, appendItem(d, hooks, unit, member(ev))...)
		}
	} else if len(newEvents) > 0 {
		edits = append(edits, appendItem(d, d.root, unit, func(ind string) string {
			var parts []string
			for _, ev := range newEvents {
				parts = append(parts, ind+unit+member(ev)(ind+unit))
			}
			return "\"hooks\": {\n" + strings.Join(parts, ",\n") + "\n" + ind + "}"
		})...)
	}
	if len(edits) == 0 {
		return false, nil
	}
	return true, writeAtomic(path, apply(data, edits), mode)
}

// uninstall cuts every hook of the agent's events that runs only
// turnback's hook, the lists it leaves empty and a "hooks" it leaves
// empty; a file left as init would have started it is removed. It
// reports whether it changed anything and whether it removed the file.
func (a *Agent) uninstall(path, command string) (changed, deleted bool, err error) {
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return false, false, nil
	}
	data, d, mode, err := a.read(path, command)
	if err != nil {
		return false, false, err
	}
	hooks := d.root.get("hooks")
	if hooks == nil {
		return false, false, nil
	}
	var edits []edit
	cutLists := make([]bool, len(hooks.members))
	for i, m := range hooks.members {
		if !slices.Contains(a.Events, m.key) || m.val.kind != '[' {
			continue
		}
		cut := make([]bool, len(m.val.elems))
		n := 0
		for j, e := range m.val.elems {
			if cut[j] = a.isTurnbacks(d, e, command); cut[j] {
				n++
			}
		}
		switch {
		case n == 0:
		case n == len(cut):
			cutLists[i] = true
		default:
			edits = append(edits, removeItems(data, m.val, cut)...)
		}
	}
	if len(cutLists) > 0 && !slices.Contains(cutLists, false) {
		cut := make([]bool, len(d.root.members))
		for i, m := range d.root.members {
			cut[i] = m.val == hooks
		}
		edits = append(edits, removeItems(data, d.root, cut)...)
	} else {
		edits = append(edits, removeItems(data, hooks, cutLists)...)
	}
	out := apply(data, edits)
	if bytes.Equal(out, data) {
		return false, false, nil
	}
	if bytes.Equal(out, a.baseFile()) {
		if err := os.Remove(path); err != nil {
			return false, false, fmt.Errorf("turnback init: %w", err)
		}
		// The folders init made for it, if empty (.github/hooks).
		for dir, i := filepath.Dir(path), strings.Count(a.Settings, "/"); i > 0 && os.Remove(dir) == nil; dir, i = filepath.Dir(dir), i-1 {
		}
		return true, true, nil
	}
	return true, false, writeAtomic(path, out, mode)
}

// writeAtomic writes data to path through a temporary file and a rename.
func writeAtomic(path string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("turnback init: %w", err)
	}
	tmp := path + ".turnback-tmp"
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return fmt.Errorf("turnback init: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("turnback init: %w", err)
	}
	return nil
}
