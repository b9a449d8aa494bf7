package ui

import (
	"strings"
	"unicode/utf8"
)

// ANSI foreground codes of the token kinds.
const (
	colComment = "90"
	colKeyword = "35"
	colString  = "36"
	colNumber  = "33"
	colName    = "34" // builtins, types, declared names, keys, tags
)

// highlighter colours the lines of one file by its name's language,
// a line at a time (only the lines on screen are ever coloured).
// A line knows nothing of the lines above it: a block comment or string
// that spans lines is coloured only where its own markers show.
type highlighter struct {
	lang  *lang
	cache map[string]string
}

// newHighlighter returns nil when no language is known for the file's name.
func newHighlighter(path string) *highlighter {
	l := langFor(path)
	if l == nil {
		return nil
	}
	return &highlighter{lang: l, cache: map[string]string{}}
}

// line returns text with ANSI colours (foreground only, reset at the end).
func (h *highlighter) line(text string) string {
	if h == nil || text == "" {
		return text
	}
	if s, ok := h.cache[text]; ok {
		return s
	}
	s := h.lang.colour(text)
	if len(h.cache) > 4096 {
		clear(h.cache)
	}
	h.cache[text] = s
	return s
}

// painter writes text with runs of one colour.
type painter struct {
	b   strings.Builder
	src string
}

func (p *painter) put(i, j int, col string) {
	if i >= j {
		return
	}
	if col == "" {
		p.b.WriteString(p.src[i:j])
		return
	}
	p.b.WriteString("\x1b[" + col + "m")
	p.b.WriteString(p.src[i:j])
	p.b.WriteString("\x1b[39m")
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdent(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isSpace(c byte) bool { return c == ' ' || c == '\t' }

// colour scans one line of code.
func (l *lang) colour(s string) string {
	p := &painter{src: s}
	p.b.Grow(len(s) + 32)
	i := 0
	switch l.mode {
	case modeMarkdown:
		t := strings.TrimLeft(s, " ")
		if strings.HasPrefix(t, "#") && len(s)-len(t) < 4 {
			p.put(0, len(s), colKeyword)
			return p.b.String()
		}
	case modeKeys:
		i = l.key(p, s)
	}
	if l.blockOpen != "" {
		i = l.blockTail(p, s, i)
	}
	decl := false
	for i < len(s) {
		c := s[i]
		// Comments.
		if l.blockOpen != "" && strings.HasPrefix(s[i:], l.blockOpen) {
			j := strings.Index(s[i+len(l.blockOpen):], l.blockClose)
			end := len(s)
			if j >= 0 {
				end = i + len(l.blockOpen) + j + len(l.blockClose)
			}
			p.put(i, end, colComment)
			i = end
			continue
		}
		if l.lineComment(s, i) {
			p.put(i, len(s), colComment)
			break
		}
		switch {
		case l.mode == modeMarkup && c == '<':
			i = l.tag(p, s, i)
		case l.mode == modeMarkup:
			j := strings.IndexByte(s[i:], '<')
			if j < 0 {
				j = len(s) - i
			}
			p.put(i, i+j, "")
			i += j
		case strings.IndexByte(l.quotes, c) >= 0:
			end := l.str(s, i)
			if c == '\'' && l.lifetimes && lifetime(s, i) {
				p.put(i, i+1, "")
				i++
				continue
			}
			p.put(i, end, colString)
			i = end
		case l.noNumbers && (isDigit(c) || c == '.'):
			p.put(i, i+1, "")
			i++
		case isDigit(c) || c == '.' && i+1 < len(s) && isDigit(s[i+1]) && (i == 0 || !isIdent(s[i-1])):
			j := i + 1
			for j < len(s) && (isIdent(s[j]) || s[j] == '.' && j+1 < len(s) && isDigit(s[j+1]) ||
				(s[j] == '+' || s[j] == '-') && (s[j-1] == 'e' || s[j-1] == 'E') && !strings.HasPrefix(s[i:], "0x")) {
				j++
			}
			p.put(i, j, colNumber)
			i = j
		case isIdentStart(c) || c == '$' && l.dollar:
			j := i + 1
			for j < len(s) && (isIdent(s[j]) || s[j] == '$' && l.dollar) {
				j++
			}
			w := s[i:j]
			col := ""
			switch {
			case l.keywords[w]:
				col = colKeyword
			case decl, l.builtins[w]:
				col = colName
			}
			decl = l.decls[w]
			p.put(i, j, col)
			i = j
		default:
			j := i + 1
			// Copy the run of plain bytes in one go.
			for j < len(s) && !l.special(s, j) {
				j++
			}
			if strings.Trim(s[i:j], " \t") != "" {
				decl = false
			}
			p.put(i, j, "")
			i = j
		}
	}
	return p.b.String()
}

// lifetime reports whether the ' at s[i] is a Rust lifetime, not a char.
func lifetime(s string, i int) bool {
	if i+1 < len(s) && s[i+1] == '\\' {
		return false
	}
	_, n := utf8.DecodeRuneInString(s[i+1:])
	return i+1+n >= len(s) || s[i+1+n] != '\''
}

// special reports whether a token may start at s[i].
func (l *lang) special(s string, i int) bool {
	c := s[i]
	if isIdent(c) || c == '$' || c == '.' || c == '<' || strings.IndexByte(l.quotes, c) >= 0 {
		return true
	}
	if l.blockOpen != "" && c == l.blockOpen[0] {
		return true
	}
	for _, lc := range l.lineComments {
		if c == lc[0] {
			return true
		}
	}
	return false
}

// lineComment reports whether a line comment starts at s[i].
func (l *lang) lineComment(s string, i int) bool {
	for _, lc := range l.lineComments {
		if !strings.HasPrefix(s[i:], lc) {
			continue
		}
		// A shell-like '#' starts a comment only after a space: $# and x#y do not.
		if lc == "#" && l.hashAfterSpace && i > 0 && !isSpace(s[i-1]) {
			continue
		}
		return true
	}
	return false
}

// blockTail colours the end of a block comment begun on an earlier line:
// a leading "*" (the usual doc-comment gutter) or a "*/" with no opener before it.
func (l *lang) blockTail(p *painter, s string, i int) int {
	t := strings.TrimLeft(s[i:], " \t")
	if l.blockClose == "*/" && (t == "*" || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "*/") || strings.HasPrefix(t, "*\t")) {
		if j := strings.Index(s[i:], "*/"); j >= 0 {
			p.put(i, i+j+2, colComment)
			return i + j + 2
		}
		p.put(i, len(s), colComment)
		return len(s)
	}
	j := strings.Index(s[i:], l.blockClose)
	if j < 0 {
		return i
	}
	if k := strings.Index(s[i:], l.blockOpen); k >= 0 && k < j {
		return i
	}
	if strings.ContainsAny(s[i:i+j], l.quotes) {
		return i
	}
	p.put(i, i+j+len(l.blockClose), colComment)
	return i + j + len(l.blockClose)
}

// str returns the end of the string starting at s[i]: past its closing
// quote, or the end of the line when it is not closed there.
func (l *lang) str(s string, i int) int {
	q := s[i]
	if l.triple && strings.HasPrefix(s[i:], strings.Repeat(string(q), 3)) {
		j := strings.Index(s[i+3:], strings.Repeat(string(q), 3))
		if j < 0 {
			return len(s)
		}
		return i + 3 + j + 3
	}
	raw := strings.IndexByte(l.raw, q) >= 0
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if !raw {
				j++
			}
		case q:
			return j + 1
		}
	}
	return len(s)
}

// tag colours a markup tag starting at s[i] ('<') and returns its end.
func (l *lang) tag(p *painter, s string, i int) int {
	j := i + 1
	for j < len(s) && (s[j] == '/' || s[j] == '?' || s[j] == '!') {
		j++
	}
	k := j
	for k < len(s) && (isIdent(s[k]) || s[k] == '-' || s[k] == ':' || s[k] == '.') {
		k++
	}
	p.put(i, j, "")
	p.put(j, k, colName)
	for k < len(s) && s[k] != '>' && s[k] != '<' {
		if s[k] == '"' || s[k] == '\'' {
			e := l.str(s, k)
			p.put(k, e, colString)
			k = e
			continue
		}
		e := k + 1
		for e < len(s) && s[e] != '>' && s[e] != '<' && s[e] != '"' && s[e] != '\'' {
			e++
		}
		p.put(k, e, "")
		k = e
	}
	if k < len(s) && s[k] == '>' {
		p.put(k, k+1, "")
		k++
	}
	return k
}

// key colours a leading "key:" (YAML), "key =" or "[table]" (TOML).
func (l *lang) key(p *painter, s string) int {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i < len(s) && s[i] == '[' {
		j := strings.IndexByte(s[i:], ']')
		if j > 0 && !strings.ContainsAny(s[i:i+j], "\"'#") {
			p.put(0, i, "")
			p.put(i, i+j+1, colKeyword)
			return i + j + 1
		}
		return 0
	}
	if i+1 < len(s) && s[i] == '-' && s[i+1] == ' ' {
		i += 2
	}
	j := i
	for j < len(s) && (isIdent(s[j]) || s[j] == '-' || s[j] == '.' || s[j] == '/') {
		j++
	}
	if j == i {
		return 0
	}
	k := j
	for k < len(s) && s[k] == ' ' {
		k++
	}
	if k < len(s) && (s[k] == ':' && (k+1 == len(s) || isSpace(s[k+1])) || s[k] == '=' && l.tomlKeys) {
		p.put(0, i, "")
		p.put(i, j, colName)
		return j
	}
	return 0
}
