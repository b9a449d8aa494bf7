package ignore

import (
	"strings"
)

// tokKind is the kind of one element of a compiled glob.
type tokKind uint8

const (
	tokLit      tokKind = iota // one literal byte
	tokAny                     // '?': one byte other than '/'
	tokClass                   // bracket expression: one byte of a set (never '/')
	tokStar                    // '*' (or a '**' that is not special): any run of bytes without '/'
	tokStarStar                // special '**': any run of bytes, '/' included
	tokDirs                    // the start of a "**/": reads nothing; goes on to the tokStarStar after it, or skips that and the '/'
)

// token is one element of a compiled glob.
type token struct {
	kind tokKind
	b    byte  // tokLit: the byte
	cls  int32 // tokClass: index into glob.classes
}

// byteSet is a set of bytes, one bit per value.
type byteSet [4]uint64

func (s *byteSet) add(c byte)      { s[c>>6] |= 1 << (c & 63) }
func (s *byteSet) del(c byte)      { s[c>>6] &^= 1 << (c & 63) }
func (s *byteSet) has(c byte) bool { return s[c>>6]&(1<<(c&63)) != 0 }

func (s *byteSet) addRange(lo, hi byte) {
	for c := int(lo); c <= int(hi); c++ {
		s.add(byte(c))
	}
}

// midMode says how the part of a text between a glob's literal prefix and
// literal suffix is matched.
type midMode uint8

const (
	midEmpty midMode = iota // nothing may remain
	midStar                 // anything without '/'
	midAny                  // anything
	midDirs                 // empty, or anything ending in '/' ("**/")
	midNFA                  // run the automaton over toks
)

// glob is one compiled wildcard pattern. A text matches when it is
// prefix + middle + suffix (prefix and suffix not overlapping) and the
// middle matches toks as mode says.
type glob struct {
	prefix  string
	suffix  string
	mode    midMode
	never   bool // the pattern can match nothing (invalid bracket, trailing '\')
	toks    []token
	classes []byteSet
	minLen  int      // bytes the middle needs at least: its one-byte tokens
	must    string   // literal bytes the middle must contain (a quick filter)
	head    int      // index of toks[0] if it reads exactly one byte, else -1
	tail    int      // index of the last token if it reads exactly one byte, else -1
	eps     uint64   // for nfaSmall: bit k set when toks[k] is a star kind
	epsWide []uint64 // the same for any length, for nfaLarge
}

// literalLen returns the length of the leading part of p that holds no
// wildcard or escape character: git's "no wildcard length".
func literalLen(p string) int {
	if i := strings.IndexAny(p, `*?[\`); i >= 0 {
		return i
	}
	return len(p)
}

// compileGlob compiles p, a pattern with any leading '/', '!' and trailing
// '/' already removed.
func compileGlob(p string) glob {
	var g glob
	lit := literalLen(p)
	if lit == len(p) {
		g.prefix, g.mode = p, midEmpty
		return g
	}
	toks, classes, ok := tokenize(p, lit)
	if !ok {
		g.never = true
		return g
	}
	g.prefix = p[:lit]
	toks = toks[lit:] // the prefix is literal bytes, one token each
	g.classes = classes

	// Peel a literal suffix off the end, but never the '/' that belongs to
	// a "**/" (tokDirs may skip over it).
	end := len(toks)
	for end > 0 && toks[end-1].kind == tokLit {
		end--
	}
	if end > 1 && toks[end-2].kind == tokDirs {
		end++
	}
	if end < len(toks) {
		suf := make([]byte, 0, len(toks)-end)
		for _, t := range toks[end:] {
			suf = append(suf, t.b)
		}
		g.suffix = string(suf)
	}
	toks = toks[:end]

	switch {
	case len(toks) == 0:
		g.mode = midEmpty
	case len(toks) == 1 && toks[0].kind == tokStar:
		g.mode = midStar
	case len(toks) == 1 && toks[0].kind == tokStarStar:
		g.mode = midAny
	case len(toks) == 3 && toks[0].kind == tokDirs:
		g.mode = midDirs // "**/" alone
	default:
		g.setNFA(toks)
	}
	if len(g.classes) == 0 || g.mode != midNFA {
		g.classes = nil
	}
	return g
}

// setNFA makes g run the automaton over toks for its middle.
func (g *glob) setNFA(toks []token) {
	g.mode = midNFA
	g.toks = toks
	// Both bit sets are filled, so that tests can run either automaton.
	g.epsWide = make([]uint64, len(toks)/64+1)
	var run, best []byte
	for k, t := range toks {
		optional := k >= 2 && toks[k-2].kind == tokDirs // the '/' of a "**/"
		if t.kind == tokLit && !optional {
			run = append(run, t.b)
			if len(run) > len(best) {
				best = append(best[:0], run...)
			}
		} else {
			run = run[:0]
		}
		if t.kind < tokStar {
			if !optional {
				g.minLen++
			}
			continue
		}
		setBit(g.epsWide, k)
		if k < 64 {
			g.eps |= 1 << k
		}
	}
	if len(best) >= 2 {
		g.must = string(best)
	}
	g.head, g.tail = -1, -1
	if toks[0].kind < tokStar {
		g.head = 0
	}
	if last := len(toks) - 1; toks[last].kind < tokStar && (last < 2 || toks[last-2].kind != tokDirs) {
		g.tail = last
	}
}

// reads reports whether the one-byte token tk accepts c.
func (g *glob) reads(tk token, c byte) bool {
	switch tk.kind {
	case tokLit:
		return c == tk.b
	case tokAny:
		return c != '/'
	case tokClass:
		return g.classes[tk.cls].has(c)
	}
	return false
}

// tokenize splits p into tokens. start is where git's wildcard matcher
// begins for this pattern (after the literal prefix that git compares
// separately): a "**" there counts as being at the start of the pattern.
// ok is false when the pattern can never match: an unclosed or malformed
// bracket expression, or a trailing unescaped backslash.
func tokenize(p string, start int) (toks []token, classes []byteSet, ok bool) {
	toks = make([]token, 0, len(p))
	for i := 0; i < len(p); {
		switch c := p[i]; c {
		case '\\':
			if i+1 >= len(p) {
				return nil, nil, false
			}
			toks = append(toks, token{kind: tokLit, b: p[i+1]})
			i += 2
		case '?':
			toks = append(toks, token{kind: tokAny})
			i++
		case '[':
			set, next, good := parseClass(p, i)
			if !good {
				return nil, nil, false
			}
			classes = append(classes, set)
			toks = append(toks, token{kind: tokClass, cls: int32(len(classes) - 1)})
			i = next
		case '*':
			j := i + 1
			for j < len(p) && p[j] == '*' {
				j++
			}
			kind := tokStar
			if j-i >= 2 && (i == start || p[i-1] == '/') {
				switch {
				case j == len(p):
					kind = tokStarStar
				case p[j] == '/':
					if n := len(toks); n >= 3 && toks[n-3].kind == tokDirs && toks[n-1].kind == tokLit {
						// "**/**/" is "**/": drop the repeat, so no run
						// of states matches nothing (see glob.match).
						i = j + 1
						continue
					}
					toks = append(toks, token{kind: tokDirs})
					kind = tokStarStar
				case p[j] == '\\' && j+1 < len(p) && p[j+1] == '/':
					kind = tokStarStar // "**\/": any run, then a literal '/'
				}
			}
			toks = append(toks, token{kind: kind})
			i = j
		default:
			toks = append(toks, token{kind: tokLit, b: c})
			i++
		}
	}
	return toks, classes, true
}

// parseClass parses the bracket expression that starts at p[i] == '['.
// It returns the set of bytes it matches, the index just past its closing
// ']', and false when it is malformed (then the whole pattern never
// matches, as in git).
//
// Rules, as git applies them: '!' or '^' first negates; the first member
// may be ']'; '\' escapes the next byte; "a-z" is a range (a '-' first,
// last, or right after a range or a named class is literal); "[:name:]" is
// a named ASCII class, and an unknown name is an error; "[:" without a
// closing ":]" is an ordinary '['. The result never contains '/'.
func parseClass(p string, i int) (set byteSet, next int, ok bool) {
	j := i + 1
	if j >= len(p) {
		return set, 0, false
	}
	c := p[j]
	negated := false
	if c == '!' || c == '^' {
		negated = true
		j++
		if j >= len(p) {
			return set, 0, false
		}
		c = p[j]
	}
	var prev byte // previous single member, 0 when there is none
	for {
		switch {
		case c == '\\':
			j++
			if j >= len(p) {
				return set, 0, false
			}
			c = p[j]
			set.add(c)
		case c == '-' && prev != 0 && j+1 < len(p) && p[j+1] != ']':
			j++
			c = p[j]
			if c == '\\' {
				j++
				if j >= len(p) {
					return set, 0, false
				}
				c = p[j]
			}
			if prev <= c {
				set.addRange(prev, c)
			}
			c = 0
		case c == '[' && j+1 < len(p) && p[j+1] == ':':
			s := j + 2
			k := strings.IndexByte(p[s:], ']')
			if k < 0 {
				return set, 0, false
			}
			k += s
			if k-s-1 < 0 || p[k-1] != ':' {
				// No ":]": an ordinary '['; go on right after it.
				set.add('[')
				c = '['
				break
			}
			if !addNamedClass(&set, p[s:k-1]) {
				return set, 0, false
			}
			j = k
			c = 0
		default:
			set.add(c)
		}
		prev = c
		j++
		if j >= len(p) {
			return set, 0, false
		}
		c = p[j]
		if c == ']' {
			break
		}
	}
	if negated {
		for w := range set {
			set[w] = ^set[w]
		}
	}
	set.del('/')
	return set, j + 1, true
}

// addNamedClass adds the ASCII members of the POSIX class name to set, with
// git's definitions (its own ctype: space is "\t\n\r " only).
func addNamedClass(set *byteSet, name string) bool {
	switch name {
	case "alnum":
		set.addRange('0', '9')
		set.addRange('A', 'Z')
		set.addRange('a', 'z')
	case "alpha":
		set.addRange('A', 'Z')
		set.addRange('a', 'z')
	case "blank":
		set.add(' ')
		set.add('\t')
	case "cntrl":
		set.addRange(0, 0x1f)
		set.add(0x7f)
	case "digit":
		set.addRange('0', '9')
	case "graph":
		set.addRange(0x21, 0x7e)
	case "lower":
		set.addRange('a', 'z')
	case "print":
		set.addRange(0x20, 0x7e)
	case "punct":
		set.addRange(0x21, 0x2f)
		set.addRange(0x3a, 0x40)
		set.addRange(0x5b, 0x60)
		set.addRange(0x7b, 0x7e)
	case "space":
		set.add('\t')
		set.add('\n')
		set.add('\r')
		set.add(' ')
	case "upper":
		set.addRange('A', 'Z')
	case "xdigit":
		set.addRange('0', '9')
		set.addRange('A', 'F')
		set.addRange('a', 'f')
	default:
		return false
	}
	return true
}
