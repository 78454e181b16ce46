package analysis

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// startRe finds the matches of a pattern every match of which starts with
// one of a few literals (its prefix set): the pattern runs anchored at the
// occurrences of those literals only, instead of being tried at every byte
// of the text as an unanchored search does. findAll returns exactly what
// re.FindAllStringIndex returns.
type startRe struct {
	re *regexp.Regexp
	// at is ^(?:pattern), nil when the pattern has no usable prefix set
	// (findAll then runs re).
	at *regexp.Regexp
	// atCtx, for a pattern with a word boundary assertion that wordB does
	// not cover, is ^(?s:.)(?:pattern): a run at p > 0 starts at p-1, so
	// that the assertion sees the byte before p as the whole text has it.
	atCtx  *regexp.Regexp
	prefix []string
	// first[c] is 1 + the index of the first prefix literal (they are
	// sorted) that starts with c, ignoring ASCII case when fold; 0: none.
	first [256]uint8
	// pairs holds the first two bytes (lower-cased) of every prefix
	// literal, all of which have two or more; nil when one has a single
	// byte. A start whose two bytes are not among them is no match.
	pairs *gramSet
	// wordB: the pattern starts with \b (every prefix literal then starts
	// with a word byte, so the \b holds where the byte before is not one).
	wordB bool
	// limit is how many bytes from a start the anchored run reads: one more
	// than the longest match (so a trailing \b sees its next byte), or 0
	// for no limit.
	limit int
	fold  bool
}

func newStartRe(re *regexp.Regexp) startRe {
	s := startRe{re: re}
	p, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return s
	}
	if l, ok := maxLenOf(p); ok {
		s.limit = l + 1
	}
	s.fold = hasFoldCase(p)
	p = p.Simplify()
	// Anchors need no care: no start literal is empty, so a ^ is never
	// tried where the run starts, and a $ is never tried at the byte
	// limit, which is one past the longest match.
	pre, wordB := startLiterals(p)
	if s.fold {
		// A literal holding the non-ASCII fold of k or s ("anticipateſ"
		// of (?i)anticipate[sd]?) occurs only in texts find runs re on.
		pre = slices.DeleteFunc(pre, func(l string) bool { return strings.ContainsAny(l, "\u017f\u212a") })
	}
	if len(pre) == 0 || minLenOf(pre) < 1 {
		return s
	}
	for _, l := range pre {
		if wordB && !isWordByte(l[0]) || !bytewise(l, s.fold) {
			return s
		}
	}
	if len(pre) > 255 {
		return s
	}
	s.prefix, s.wordB = pre, wordB // sorted
	if minLenOf(pre) >= 2 {
		s.pairs = new(gramSet)
		for _, l := range pre {
			s.pairs.add(l[0], l[1])
		}
	}
	for i := len(pre) - 1; i >= 0; i-- {
		c := pre[i][0]
		s.first[c] = uint8(i + 1)
		if s.fold {
			s.first[upperASCII(c)] = uint8(i + 1)
		}
	}
	s.at = regexp.MustCompile(`^(?:` + re.String() + `)`)
	if !wordB && hasWordBoundary(p) {
		s.atCtx = regexp.MustCompile(`^(?s:.)(?:` + re.String() + `)`)
	}
	return s
}

// maxStartLiterals bounds the literals startLiterals enumerates.
const maxStartLiterals = 64

// startLiterals returns literals (lower-case, sorted, deduplicated) one of
// which every match of p starts with, or nil, and whether p begins with
// \b. A leading run of literals, optional literals and small character
// classes is spelt out (at most maxStartLiterals strings); a repeated item
// contributes its own start.
func startLiterals(p *syntax.Regexp) ([]string, bool) {
	if p.Op == syntax.OpConcat && len(p.Sub) > 1 && p.Sub[0].Op == syntax.OpWordBoundary {
		l, b := startLiterals(&syntax.Regexp{Op: syntax.OpConcat, Sub: p.Sub[1:]})
		if b {
			return nil, false
		}
		return l, l != nil
	}
	switch p.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return startLiterals(p.Sub[0])
	case syntax.OpRepeat:
		if p.Min >= 1 {
			return startLiterals(p.Sub[0])
		}
		return nil, false
	case syntax.OpAlternate:
		// p begins with \b when every branch does; where only some do,
		// their \b is left to the anchored run (newStartRe's atCtx).
		var out []string
		wordB := true
		for _, s := range p.Sub {
			l, b := startLiterals(s)
			if l == nil {
				return nil, false
			}
			wordB = wordB && b
			out = append(out, l...)
		}
		return dedupe(out), wordB
	case syntax.OpConcat:
		if len(p.Sub) > 1 && p.Sub[0].Op == syntax.OpQuest {
			// An optional first item: a match starts with it or with
			// what follows it.
			a, ab := startLiterals(p.Sub[0].Sub[0])
			b, bb := startLiterals(&syntax.Regexp{Op: syntax.OpConcat, Sub: p.Sub[1:]})
			if spelt(p.Sub[0]) == nil {
				if a == nil || b == nil || ab || bb {
					return nil, false
				}
				return dedupe(append(a, b...)), false
			}
		}
		acc := []string{""}
		for i, s := range p.Sub {
			if ex := spelt(s); ex != nil {
				if len(acc) > 1 && len(acc)*len(ex) > maxStartLiterals {
					break
				}
				acc = crossAll(acc, ex)
				continue
			}
			l, b := startLiterals(s)
			if i == 0 && l != nil && b {
				return l, true // a first item starting with \b: its own start
			}
			if l != nil && !b && (len(acc) == 1 || len(acc)*len(l) <= maxStartLiterals) {
				acc = crossAll(acc, l)
			}
			break
		}
		for _, a := range acc {
			if a == "" {
				return nil, false
			}
		}
		return dedupe(acc), false
	}
	if ex := spelt(p); ex != nil {
		return dedupe(ex), false
	}
	return nil, false
}

// foldLower lower-cases s when p matches case-insensitively (a literal
// that does not stays as written, and newStartRe refuses upper case).
func foldLower(p *syntax.Regexp, s string) string {
	if p.Flags&syntax.FoldCase != 0 {
		return strings.ToLower(s)
	}
	return s
}

// crossAll concatenates every pair (cross without its bound).
func crossAll(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out
}

// spelt returns every string p matches (lower-cased where it folds case), or nil when p is not
// a small finite set: literals, optional items, alternations and
// character classes of at most 16 characters, concatenated.
func spelt(p *syntax.Regexp) []string {
	switch p.Op {
	case syntax.OpLiteral:
		return []string{foldLower(p, string(p.Rune))}
	case syntax.OpCapture:
		return spelt(p.Sub[0])
	case syntax.OpQuest:
		if l := spelt(p.Sub[0]); l != nil {
			return append(l, "")
		}
	case syntax.OpCharClass:
		var out []string
		for i := 0; i+1 < len(p.Rune); i += 2 {
			if p.Rune[i+1]-p.Rune[i] > 16 || len(out) > 32 {
				return nil
			}
			for r := p.Rune[i]; r <= p.Rune[i+1]; r++ {
				out = append(out, foldLower(p, string(r)))
			}
		}
		return dedupe(out)
	case syntax.OpAlternate:
		var out []string
		for _, s := range p.Sub {
			l := spelt(s)
			if l == nil || len(out)+len(l) > maxStartLiterals {
				return nil
			}
			out = append(out, l...)
		}
		return dedupe(out)
	case syntax.OpConcat:
		acc := []string{""}
		for _, s := range p.Sub {
			l := spelt(s)
			if l == nil || len(acc)*len(l) > maxStartLiterals {
				return nil
			}
			acc = cross(acc, l)
		}
		return acc
	}
	return nil
}

// bytewise reports whether where the literal l (lower-cased when fold)
// occurs is found by comparing bytes, ASCII letters in either case when
// fold: l has no upper-case ASCII letter, and when fold no non-ASCII rune
// with other case forms ("£" and "€" have none; the non-ASCII folds of k
// and s are for find to rule out).
func bytewise(l string, fold bool) bool {
	for _, r := range l {
		if r >= 'A' && r <= 'Z' || fold && r >= utf8.RuneSelf && unicode.SimpleFold(r) != r {
			return false
		}
	}
	return true
}

// isLowerASCII reports whether l is ASCII without upper-case letters: a
// case-folded literal of that kind matches where an ASCII case-insensitive
// comparison finds it, in a text without the non-ASCII folds of k and s.
func isLowerASCII(l string) bool {
	for i := 0; i < len(l); i++ {
		if l[i] >= 0x80 || l[i] >= 'A' && l[i] <= 'Z' {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 32
	}
	return c
}

func upperASCII(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 32
	}
	return c
}

// hasWordBoundary reports whether p holds \b or \B.
func hasWordBoundary(p *syntax.Regexp) bool {
	if p.Op == syntax.OpWordBoundary || p.Op == syntax.OpNoWordBoundary {
		return true
	}
	for _, s := range p.Sub {
		if hasWordBoundary(s) {
			return true
		}
	}
	return false
}

// findAll is re.FindAllStringIndex(s, n) for n > 0.
func (r *startRe) findAll(s string, n int) [][]int { return r.find(s, n, false) }

// findAllSubmatch is re.FindAllStringSubmatchIndex(s, n) for n > 0: the
// anchored run at a match's start gives its submatches (^(?:pattern)
// numbers its groups as the pattern does).
func (r *startRe) findAllSubmatch(s string, n int) [][]int { return r.find(s, n, true) }

// find is findAll, or findAllSubmatch when sub.
func (r *startRe) find(s string, n int, sub bool) [][]int {
	if r.at == nil || r.fold && (strings.Contains(s, "\u017f") || strings.Contains(s, "\u212a")) {
		if sub {
			return r.re.FindAllStringSubmatchIndex(s, n)
		}
		return r.re.FindAllStringIndex(s, n)
	}
	var out [][]int
	next := 0 // a match ends here; the next one starts at or after it
	for p := 0; p < len(s); p++ {
		if r.first[s[p]] == 0 || p < next {
			continue
		}
		if r.wordB && p > 0 && isWordByte(s[p-1]) {
			continue
		}
		if r.pairs != nil && (p+1 == len(s) || !r.pairs.has(lowerASCII(s[p]), lowerASCII(s[p+1]))) {
			continue
		}
		if !r.hasPrefixAt(s, p) {
			continue
		}
		end := len(s)
		if r.limit > 0 {
			end = min(end, p+r.limit)
		}
		m := r.matchAt(s[:end], p, sub)
		if m == nil {
			continue
		}
		out = append(out, m)
		if len(out) >= n {
			break
		}
		next = m[1]
	}
	return out
}

// matchAt returns the match of the pattern that starts at s[p] (with its
// submatches when sub), offsets in s, or nil: the anchored run (at, or
// atCtx with the byte before p in view).
func (r *startRe) matchAt(s string, p int, sub bool) []int {
	q, at := p, r.at
	if r.atCtx != nil && p > 0 {
		q, at = p-1, r.atCtx
	}
	var m []int
	if sub {
		m = at.FindStringSubmatchIndex(s[q:])
	} else {
		m = at.FindStringIndex(s[q:])
	}
	if m == nil {
		return nil
	}
	for i := range m {
		if m[i] >= 0 {
			m[i] += q
		}
	}
	m[0] = p
	return m
}

func (r *startRe) hasPrefixAt(s string, p int) bool {
	c := s[p]
	if r.fold && c >= 'A' && c <= 'Z' {
		c += 32
	}
	for _, l := range r.prefix[r.first[s[p]]-1:] {
		if l[0] != c {
			return false
		}
		if len(s)-p < len(l) {
			continue
		}
		if r.fold && asciiEqualFold(s[p:p+len(l)], l) || !r.fold && s[p:p+len(l)] == l {
			return true
		}
	}
	return false
}

// asciiEqualFold compares a with the lower-case ASCII l, ignoring ASCII case.
func asciiEqualFold(a, l string) bool {
	for i := 0; i < len(l); i++ {
		c := a[i]
		if c >= 'A' && c <= 'Z' {
			c += 32
		}
		if c != l[i] {
			return false
		}
	}
	return true
}

// containsFold reports whether s holds lit (lower-case ASCII) ignoring
// ASCII case: for a literal without k or s (whose case folds include
// non-ASCII letters) this is whether (?i)lit occurs in s.
func containsFold(s, lit string) bool {
	c0, u0 := lit[0], upperASCII(lit[0])
	for i := 0; i+len(lit) <= len(s); i++ {
		if c0 == u0 {
			// A first byte without case ("[attach"): go to where it is.
			j := strings.IndexByte(s[i:len(s)-len(lit)+1], c0)
			if j < 0 {
				return false
			}
			i += j
		}
		if (s[i] == c0 || s[i] == u0) && asciiEqualFold(s[i:i+len(lit)], lit) {
			return true
		}
	}
	return false
}

// leadGate is a necessary condition for a match of a pattern of the form
// ^[C]*X… at the start of a text: within or just after the run of bytes of
// the class C the text starts with, one of X's start literals begins
// (ASCII case folded). A text holding the non-ASCII folds of k or s must
// be matched without it.
type leadGate struct {
	skip [256]bool
	lits []string // sorted; nil: no gate, every text may match
	// first[c] is 1 + the index of the first literal starting with c (either
	// case); 0: none.
	first [256]uint16
}

func newLeadGate(re *regexp.Regexp) leadGate {
	var g leadGate
	p, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return g
	}
	p = p.Simplify()
	if p.Op != syntax.OpConcat || len(p.Sub) < 3 || p.Sub[0].Op != syntax.OpBeginText ||
		p.Sub[1].Op != syntax.OpStar || p.Sub[1].Sub[0].Op != syntax.OpCharClass {
		return g
	}
	cls := p.Sub[1].Sub[0].Rune
	for i := 0; i+1 < len(cls); i += 2 {
		if cls[i+1] >= utf8.RuneSelf {
			return g
		}
		for r := cls[i]; r <= cls[i+1]; r++ {
			g.skip[r] = true
		}
	}
	lits, wordB := startLiterals(&syntax.Regexp{Op: syntax.OpConcat, Sub: p.Sub[2:]})
	if lits == nil || wordB {
		return g
	}
	for _, l := range lits {
		if l == "" || !isLowerASCII(l) || len(lits) >= 1<<16 {
			return g
		}
	}
	g.lits = lits // sorted by dedupe
	for i := len(lits) - 1; i >= 0; i-- {
		g.first[lits[i][0]] = uint16(i + 1)
		g.first[upperASCII(lits[i][0])] = uint16(i + 1)
	}
	return g
}

// mayMatch reports whether the pattern can match at the start of s.
func (g *leadGate) mayMatch(s string) bool {
	if g.lits == nil {
		return true
	}
	// X starts within or just after the run of class bytes.
	for q := 0; q < len(s); q++ {
		if f := g.first[s[q]]; f != 0 {
			c := s[q]
			if c >= 'A' && c <= 'Z' {
				c += 32
			}
			for _, l := range g.lits[f-1:] {
				if l[0] != c {
					break
				}
				if len(s)-q >= len(l) && asciiEqualFold(s[q:q+len(l)], l) {
					return true
				}
			}
		}
		if !g.skip[s[q]] {
			return false
		}
	}
	return false
}
