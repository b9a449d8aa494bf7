package ui

import (
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// highlighter colours the lines of one file by its name's language,
// a line at a time (only the lines on screen are ever coloured).
type highlighter struct {
	lexer chroma.Lexer
	cache map[string]string
}

// newHighlighter returns nil when no lexer knows the file's name.
func newHighlighter(path string) *highlighter {
	l := lexers.Match(path)
	if l == nil {
		return nil
	}
	return &highlighter{lexer: chroma.Coalesce(l), cache: map[string]string{}}
}

// line returns text with ANSI colours (foreground only, reset at the end).
func (h *highlighter) line(text string) string {
	if h == nil || text == "" {
		return text
	}
	if s, ok := h.cache[text]; ok {
		return s
	}
	it, err := h.lexer.Tokenise(nil, text+"\n")
	if err != nil {
		return text
	}
	var b strings.Builder
	for _, tok := range it.Tokens() {
		v := strings.TrimRight(tok.Value, "\n")
		if v == "" {
			continue
		}
		if c := tokenColor(tok.Type); c != "" {
			b.WriteString("\x1b[" + c + "m" + v + "\x1b[39m")
		} else {
			b.WriteString(v)
		}
	}
	s := b.String()
	if len(h.cache) > 4096 {
		clear(h.cache)
	}
	h.cache[text] = s
	return s
}

// tokenColor is the ANSI foreground code of a token type ("" for none).
func tokenColor(t chroma.TokenType) string {
	switch {
	case t.InCategory(chroma.Comment):
		return "90"
	case t.InCategory(chroma.Keyword):
		return "35"
	case t.InCategory(chroma.LiteralString):
		return "36"
	case t.InCategory(chroma.LiteralNumber):
		return "33"
	case t == chroma.NameFunction, t == chroma.NameClass, t.InSubCategory(chroma.NameBuiltin):
		return "34"
	}
	return ""
}
