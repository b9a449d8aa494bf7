package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// jnode is one JSON value of a settings file and where its bytes are,
// so that init edits the file by inserting and cutting bytes, and
// everything it does not touch (comments, spacing, key order, number
// spelling) stays as written. Settings files may have comments (JSONC:
// // and /* */, as Gemini CLI and VS Code accept); trailing commas are
// refused, as JSON.parse refuses them.
type jnode struct {
	kind       byte // '{', '[' or 0 for a string, number, true, false, null
	start, end int  // the value's bytes
	members    []jmember
	elems      []*jnode
}

// jmember is one key of an object; keyStart is where its key begins.
type jmember struct {
	key      string
	keyStart int
	val      *jnode
}

// get returns the value of key in an object (the last, if repeated).
func (n *jnode) get(key string) *jnode {
	var v *jnode
	for _, m := range n.members {
		if m.key == key {
			v = m.val
		}
	}
	return v
}

// jdoc is a parsed settings file: its bytes, a copy with every comment
// blanked out (for decoding a part of it), and its top value.
type jdoc struct {
	src, clean []byte
	root       *jnode
}

type jparser struct {
	src, clean []byte
	pos        int
}

func parseJSONC(src []byte) (*jdoc, error) {
	p := &jparser{src: src, clean: bytes.Clone(src)}
	if bytes.HasPrefix(src, []byte("\ufeff")) {
		p.pos = 3
		copy(p.clean, "   ")
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	root, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos < len(src) {
		return nil, p.errf("more after the end of the settings")
	}
	return &jdoc{src: src, clean: p.clean, root: root}, nil
}

func (p *jparser) errf(format string, args ...any) error {
	line := 1 + bytes.Count(p.src[:min(p.pos, len(p.src))], []byte("\n"))
	return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, args...))
}

// skip passes white space and comments.
func (p *jparser) skip() error {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '/':
			start := p.pos
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
			p.blank(start)
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '*':
			start := p.pos
			i := bytes.Index(p.src[p.pos+2:], []byte("*/"))
			if i < 0 {
				return p.errf("a /* comment is not closed")
			}
			p.pos += i + 4
			p.blank(start)
		default:
			return nil
		}
	}
	return nil
}

// blank blanks out a comment in the clean copy, keeping line breaks.
func (p *jparser) blank(start int) {
	for i := start; i < p.pos; i++ {
		if p.clean[i] != '\n' {
			p.clean[i] = ' '
		}
	}
}

func (p *jparser) value(depth int) (*jnode, error) {
	if depth > 200 {
		return nil, p.errf("nested too deeply")
	}
	if p.pos >= len(p.src) {
		return nil, p.errf("unexpected end")
	}
	n := &jnode{start: p.pos}
	switch c := p.src[p.pos]; c {
	case '{', '[':
		n.kind = c
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		p.pos++
		for first := true; ; first = false {
			if err := p.skip(); err != nil {
				return nil, err
			}
			if p.pos < len(p.src) && p.src[p.pos] == closer {
				if !first {
					return nil, p.errf("a comma before %q (JSON has no trailing commas)", closer)
				}
				break
			}
			if err := p.item(n, depth); err != nil {
				return nil, err
			}
			if err := p.skip(); err != nil {
				return nil, err
			}
			if p.pos < len(p.src) && p.src[p.pos] == closer {
				break
			}
			if p.pos >= len(p.src) || p.src[p.pos] != ',' {
				return nil, p.errf("want ',' or %q", closer)
			}
			p.pos++
		}
		p.pos++
	case '"':
		if _, err := p.str(); err != nil {
			return nil, err
		}
	default:
		for p.pos < len(p.src) && bytes.IndexByte([]byte("+-.0123456789eEtruefalsn"), p.src[p.pos]) >= 0 {
			p.pos++
		}
		if !json.Valid(p.src[n.start:p.pos]) {
			p.pos = n.start
			return nil, p.errf("not a JSON value")
		}
	}
	n.end = p.pos
	return n, nil
}

// item reads one member of an object or element of an array into n.
func (p *jparser) item(n *jnode, depth int) error {
	if n.kind == '[' {
		v, err := p.value(depth + 1)
		if err == nil {
			n.elems = append(n.elems, v)
		}
		return err
	}
	keyStart := p.pos
	if p.pos >= len(p.src) || p.src[p.pos] != '"' {
		return p.errf("want a key in quotes")
	}
	key, err := p.str()
	if err != nil {
		return err
	}
	if err := p.skip(); err != nil {
		return err
	}
	if p.pos >= len(p.src) || p.src[p.pos] != ':' {
		return p.errf("want ':' after a key")
	}
	p.pos++
	if err := p.skip(); err != nil {
		return err
	}
	v, err := p.value(depth + 1)
	if err != nil {
		return err
	}
	n.members = append(n.members, jmember{key: key, keyStart: keyStart, val: v})
	return nil
}

// str reads a string and returns its value.
func (p *jparser) str() (string, error) {
	start := p.pos
	for p.pos++; p.pos < len(p.src) && p.src[p.pos] != '"'; p.pos++ {
		if p.src[p.pos] == '\\' {
			p.pos++
		}
	}
	if p.pos >= len(p.src) {
		p.pos = start
		return "", p.errf("a string is not closed")
	}
	p.pos++
	var s string
	if err := json.Unmarshal(p.src[start:p.pos], &s); err != nil {
		p.pos = start
		return "", p.errf("a string is not valid JSON")
	}
	return s, nil
}
