package analysis

import (
	"regexp"
	"regexp/syntax"
	"strings"
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
	at     *regexp.Regexp
	prefix []string
	// first marks the bytes a prefix literal starts with.
	first [256]bool
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
	if hasAnchor(p) || hasNoWordBoundary(p) {
		return s
	}
	pre, wordB := prefixLiterals(p)
	if pre == nil || minLenOf(pre) < 1 {
		return s
	}
	if !s.fold && hasUpper(re.String()) {
		// prefixLiterals lower-cases what it reads.
		return s
	}
	for _, l := range pre {
		if wordB && !isWordByte(l[0]) || !isLowerASCII(l) {
			return s
		}
	}
	s.prefix, s.wordB = pre, wordB
	for _, l := range pre {
		s.first[l[0]] = true
		if s.fold {
			s.first[upperASCII(l[0])] = true
		}
	}
	s.at = regexp.MustCompile(`^(?:` + re.String() + `)`)
	return s
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

// hasUpper reports whether a pattern holds an upper-case ASCII letter that
// is not an escape's (\S, \W, \D, \B).
func hasUpper(pattern string) bool {
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == '\\':
			i++
		case c >= 'A' && c <= 'Z':
			return true
		}
	}
	return false
}

func upperASCII(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 32
	}
	return c
}

func hasNoWordBoundary(p *syntax.Regexp) bool {
	if p.Op == syntax.OpNoWordBoundary {
		return true
	}
	for _, s := range p.Sub {
		if hasNoWordBoundary(s) {
			return true
		}
	}
	return false
}

// findAll is re.FindAllStringIndex(s, n) for n > 0.
func (r *startRe) findAll(s string, n int) [][]int {
	if r.at == nil || r.fold && (strings.Contains(s, "\u017f") || strings.Contains(s, "\u212a")) {
		return r.re.FindAllStringIndex(s, n)
	}
	var out [][]int
	next := 0 // a match ends here; the next one starts at or after it
	for p := 0; p < len(s); p++ {
		if !r.first[s[p]] || p < next {
			continue
		}
		if r.wordB && p > 0 && isWordByte(s[p-1]) {
			continue
		}
		if !r.hasPrefixAt(s, p) {
			continue
		}
		end := len(s)
		if r.limit > 0 {
			end = min(end, p+r.limit)
		}
		m := r.at.FindStringIndex(s[p:end])
		if m == nil {
			continue
		}
		out = append(out, []int{p, p + m[1]})
		if len(out) >= n {
			break
		}
		next = p + m[1]
	}
	return out
}

func (r *startRe) hasPrefixAt(s string, p int) bool {
	for _, l := range r.prefix {
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
