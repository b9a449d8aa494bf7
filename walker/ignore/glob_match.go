// Matching a compiled glob: a literal fast path, then a bit-parallel NFA
// (one uint64 of states for short patterns, a bit set for long ones).

package ignore

import (
	"math/bits"
	"strings"
)

// The automaton: state k (0 <= k <= len(toks)) means "toks[:k] matched the
// text read so far". Reading a byte moves state k to k+1 (a one-byte
// token that accepts it) or keeps it at k (a star that accepts it);
// afterwards every star state also enables the state after it (it may
// match nothing more), and a tokDirs state, which reads nothing, enables
// both k+1 (its "**") and k+3 (after its "**/": zero directories).
// The text matches when state len(toks) is active at the end. Every byte
// costs at most O(len(toks)), so a match is O(len(t)*len(toks)) whatever
// the pattern: no backtracking, no exponential blow-up.

// match reports whether the whole of t matches g.
func (g *glob) match(t string) bool {
	if g.never || len(t) < len(g.prefix)+len(g.suffix) ||
		t[:len(g.prefix)] != g.prefix || t[len(t)-len(g.suffix):] != g.suffix {
		return false
	}
	mid := t[len(g.prefix) : len(t)-len(g.suffix)]
	switch g.mode {
	case midEmpty:
		return mid == ""
	case midStar:
		return strings.IndexByte(mid, '/') < 0
	case midAny:
		return true
	case midDirs:
		return mid == "" || mid[len(mid)-1] == '/'
	}
	if len(mid) < g.minLen {
		// This also bounds the work for absurdly long patterns. Star
		// runs are merged and repeated "**/" dropped, so at most four
		// tokens that may match nothing precede each one that needs a
		// byte: the automaton only runs when len(toks) <= 5*len(mid)+4,
		// and a match costs O(len(t)²) at worst, whatever the pattern.
		return false
	}
	// Cheap necessary conditions first.
	if g.head >= 0 && !g.reads(g.toks[g.head], mid[0]) ||
		g.tail >= 0 && !g.reads(g.toks[g.tail], mid[len(mid)-1]) ||
		g.must != "" && !strings.Contains(mid, g.must) {
		return false
	}
	if len(g.toks) < 64 {
		return g.nfaSmall(mid)
	}
	return g.nfaLarge(mid)
}

// nfaSmall runs the automaton with one machine word of states
// (len(toks) < 64).
func (g *glob) nfaSmall(t string) bool {
	toks := g.toks
	m := len(toks)
	accept := uint64(1) << m
	cur := g.closeSmall(1)
	for i := 0; i < len(t); i++ {
		c := t[i]
		var next uint64
		for s := cur &^ accept; s != 0; s &= s - 1 {
			k := bits.TrailingZeros64(s)
			switch tk := &toks[k]; tk.kind {
			case tokLit:
				if c == tk.b {
					next |= 2 << k
				}
			case tokAny:
				if c != '/' {
					next |= 2 << k
				}
			case tokClass:
				if g.classes[tk.cls].has(c) {
					next |= 2 << k
				}
			case tokStar:
				if c != '/' {
					next |= 1 << k
				}
			case tokStarStar:
				next |= 1 << k
			}
		}
		if next == 0 {
			return false
		}
		cur = g.closeSmall(next)
	}
	return cur&accept != 0
}

// closeSmall adds to s the states reachable without reading a byte.
func (g *glob) closeSmall(s uint64) uint64 {
	x := s & g.eps
	for x != 0 {
		k := bits.TrailingZeros64(x)
		add := uint64(2) << k
		if g.toks[k].kind == tokDirs {
			add |= 8 << k
		}
		s |= add
		x = x&^(1<<k) | add&g.eps
	}
	return s
}

// nfaLarge is nfaSmall for patterns of 64 tokens or more.
func (g *glob) nfaLarge(t string) bool {
	toks := g.toks
	m := len(toks)
	words := m/64 + 1
	buf := make([]uint64, 2*words)
	cur, next := buf[:words], buf[words:]
	setBit(cur, 0)
	g.closeLarge(cur)
	for i := 0; i < len(t); i++ {
		c := t[i]
		clear(next)
		some := false
		for w, word := range cur {
			for s := word; s != 0; s &= s - 1 {
				k := w*64 + bits.TrailingZeros64(s)
				if k >= m {
					continue
				}
				to := -1
				switch tk := &toks[k]; tk.kind {
				case tokLit:
					if c == tk.b {
						to = k + 1
					}
				case tokAny:
					if c != '/' {
						to = k + 1
					}
				case tokClass:
					if g.classes[tk.cls].has(c) {
						to = k + 1
					}
				case tokStar:
					if c != '/' {
						to = k
					}
				case tokStarStar:
					to = k
				}
				if to >= 0 {
					setBit(next, to)
					some = true
				}
			}
		}
		if !some {
			return false
		}
		g.closeLarge(next)
		cur, next = next, cur
	}
	return hasBit(cur, m)
}

// closeLarge is closeSmall for nfaLarge. Epsilon moves only go forward,
// so one ascending pass over the active star states reaches them all.
func (g *glob) closeLarge(s []uint64) {
	for w := range s {
		var done uint64
		for {
			x := s[w] & g.epsWide[w] &^ done
			if x == 0 {
				break
			}
			b := bits.TrailingZeros64(x)
			done |= 1 << b
			k := w*64 + b
			setBit(s, k+1)
			if g.toks[k].kind == tokDirs {
				setBit(s, k+3)
			}
		}
	}
}

func setBit(s []uint64, k int) { s[k/64] |= 1 << (k % 64) }

func hasBit(s []uint64, k int) bool { return s[k/64]&(1<<(k%64)) != 0 }
