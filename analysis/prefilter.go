package analysis

import (
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// fastRe wraps a regexp with a literal prefilter so thousands of replies per
// second can be scored: keys are literals (lower-case) one of which every
// match must contain. Text that contains none is skipped without running the
// regexp; otherwise, for unanchored patterns, the regexp runs only on windows
// around the key occurrences. Haystacks must be asciiLower'ed.
type fastRe struct {
	re       *regexp.Regexp
	keys     []string
	anchored bool
	// Leading literals: every match starts with one of prefix (after an
	// optional \b), so the pattern runs anchored at their occurrences only.
	prefix      []string
	prefixWordB bool
	atStart     *regexp.Regexp
	// byBranch: atStart's match is found branch by branch (atStartMatch):
	// the pattern has several top-level branches, each with start literals.
	byBranch bool
	// asciiGates: every literal of the branches' gates is ASCII (lower
	// case, as requiredLiterals spells them), so a gate that fails on a
	// lower-cased text without the non-ASCII folds of k and s rules its
	// branch out there (liveBranches).
	asciiGates bool
	// win is how far around a key occurrence a match may extend: window, or
	// the pattern's maximum match length in bytes when that is smaller (a
	// match of at most win bytes containing the key at p lies in
	// [p-win, p+win]). Only for keys derived from the pattern itself.
	win int
	// atLimit is how many bytes from a prefix occurrence atStart reads:
	// maxMatch, or one more than the pattern's maximum match length (the
	// extra byte keeps a trailing \b's context) when that is smaller.
	atLimit int
	// seps bounds how many separators (' ', '\n') a match can contain (-1:
	// unbounded); a match containing the key at p then lies between the
	// seps+1'th separator before p and the seps+1'th at or after p.
	seps int
	// shrink: keys are the pattern's own required literals, so windows
	// may be cut to the match bounds above.
	shrink bool
	// alts are the pattern's top-level alternatives compiled on their own,
	// each with its literal gate (see alternative): a window runs only the
	// branches it can match, on small programs.
	alts []alternative
}

// maxMatch bounds a match's length when running anchored at a prefix.
const maxMatch = 400

// window is how far around a key a match may extend (patterns here are
// bounded well below this).
const window = 260

func newFastRe(re *regexp.Regexp) fastRe {
	f := fastRe{re: re, win: window, atLimit: maxMatch, seps: -1, alts: alternativesOf(re.String())}
	p, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return f
	}
	if l, ok := maxLenOf(p); ok {
		f.win = min(l, window)
		f.atLimit = min(l+1, maxMatch)
	}
	if n, ok := maxSepsOf(p); ok {
		f.seps = n
	}
	p = p.Simplify()
	f.anchored = hasAnchor(p)
	if !f.anchored {
		if pre, wb := prefixLiterals(p); pre != nil && minLenOf(pre) >= 2 {
			f.prefix, f.prefixWordB = pre, wb
			f.atStart = regexp.MustCompile(`^(?:` + re.String() + `)`)
			f.byBranch = len(f.alts) > 1
			f.asciiGates = true
			for _, a := range f.alts {
				f.byBranch = f.byBranch && a.start.at != nil
				for _, set := range a.gate {
					for _, l := range set {
						f.asciiGates = f.asciiGates && isLowerASCII(l.s)
					}
				}
			}
		}
	}
	keys := requiredLiterals(p)
	for _, k := range keys {
		if len(k) < 3 {
			return f
		}
	}
	f.keys = keys
	if f.win+maxLenKeys(keys) > window {
		f.win = window
	}
	f.shrink = f.win < window || f.seps >= 0
	return f
}

func maxLenKeys(xs []string) int {
	m := 0
	for _, x := range xs {
		m = max(m, len(x))
	}
	return m
}

// maxLenOf returns the most bytes a match of p can span, and false when that
// is unbounded. Any-character and class items count the UTF-8 length of
// their largest rune, case-folded literals that of their widest fold.
func maxLenOf(p *syntax.Regexp) (int, bool) {
	switch p.Op {
	case syntax.OpNoMatch, syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0, true
	case syntax.OpLiteral:
		n := 0
		for _, r := range p.Rune {
			w := utf8.RuneLen(r)
			if p.Flags&syntax.FoldCase != 0 {
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					w = max(w, utf8.RuneLen(f))
				}
			}
			n += max(w, utf8.UTFMax*boolInt(w < 0))
		}
		return n, true
	case syntax.OpCharClass:
		if len(p.Rune) == 0 {
			return 0, true
		}
		hi := p.Rune[len(p.Rune)-1]
		if w := utf8.RuneLen(hi); w > 0 {
			return w, true
		}
		return utf8.UTFMax, true
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return utf8.UTFMax, true
	case syntax.OpCapture, syntax.OpQuest:
		return maxLenOf(p.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		if l, ok := maxLenOf(p.Sub[0]); ok && l == 0 {
			return 0, true
		}
		return 0, false
	case syntax.OpRepeat:
		l, ok := maxLenOf(p.Sub[0])
		if !ok || p.Max < 0 && l > 0 {
			return 0, false
		}
		return l * max(p.Max, 0), true
	case syntax.OpConcat, syntax.OpAlternate:
		n := 0
		for _, s := range p.Sub {
			l, ok := maxLenOf(s)
			if !ok {
				return 0, false
			}
			if p.Op == syntax.OpConcat {
				n += l
			} else {
				n = max(n, l)
			}
		}
		return n, true
	}
	return 0, false
}

// maxSepsOf returns how many ' ' or '\n' a match of p can contain, and
// false when that is unbounded.
func maxSepsOf(p *syntax.Regexp) (int, bool) {
	switch p.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range p.Rune {
			if r == ' ' || r == '\n' {
				n++
			}
		}
		return n, true
	case syntax.OpCharClass:
		for i := 0; i+1 < len(p.Rune); i += 2 {
			if p.Rune[i] <= ' ' && ' ' <= p.Rune[i+1] || p.Rune[i] <= '\n' && '\n' <= p.Rune[i+1] {
				return 1, true
			}
		}
		return 0, true
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return 1, true
	case syntax.OpCapture, syntax.OpQuest:
		return maxSepsOf(p.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		if n, ok := maxSepsOf(p.Sub[0]); ok && n == 0 {
			return 0, true
		}
		return 0, false
	case syntax.OpRepeat:
		n, ok := maxSepsOf(p.Sub[0])
		if !ok || p.Max < 0 && n > 0 {
			return 0, false
		}
		return n * max(p.Max, 0), true
	case syntax.OpConcat, syntax.OpAlternate:
		t := 0
		for _, s := range p.Sub {
			n, ok := maxSepsOf(s)
			if !ok {
				return 0, false
			}
			if p.Op == syntax.OpConcat {
				t += n
			} else {
				t = max(t, n)
			}
		}
		return t, true
	}
	// Assertions and empty matches consume nothing.
	return 0, true
}

func isSep(c byte) bool { return c == ' ' || c == '\n' }

// sepBounds returns where a match with at most n separators that contains
// lower[p] can start and end: just after the n+1'th separator before p, and
// at the n+1'th separator at or after p.
func sepBounds(lower string, p, n int) (int, int) {
	lo, c := p, 0
	for lo > 0 {
		if isSep(lower[lo-1]) {
			if c == n {
				break
			}
			c++
		}
		lo--
	}
	hi, c := p, 0
	for hi < len(lower) {
		if isSep(lower[hi]) {
			if c == n {
				break
			}
			c++
		}
		hi++
	}
	return lo, hi
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func hasAnchor(p *syntax.Regexp) bool {
	switch p.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
		return true
	}
	for _, s := range p.Sub {
		if hasAnchor(s) {
			return true
		}
	}
	return false
}

// requiredLiterals returns a set of literals one of which any match must
// contain, or nil if none can be derived.
func requiredLiterals(p *syntax.Regexp) []string {
	switch p.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(p.Rune))}
	case syntax.OpCharClass:
		return exactLiterals(p) // a few characters ("[$£]"), or nil
	case syntax.OpCapture:
		return requiredLiterals(p.Sub[0])
	case syntax.OpPlus:
		return requiredLiterals(p.Sub[0])
	case syntax.OpRepeat:
		if p.Min >= 1 {
			return requiredLiterals(p.Sub[0])
		}
		return nil
	case syntax.OpAlternate:
		var out []string
		for _, s := range p.Sub {
			l := requiredLiterals(s)
			if l == nil {
				return nil
			}
			out = append(out, l...)
		}
		return dedupe(out)
	case syntax.OpConcat:
		var best []string
		bestLen := 0
		for _, s := range p.Sub {
			l := requiredLiterals(s)
			if l == nil {
				continue
			}
			if m := selectivity(l); m > bestLen {
				best, bestLen = l, m
			}
		}
		return best
	}
	return nil
}

// commonWords are literals that occur in nearly every reply; a key set made
// of them filters nothing.
var commonWords = map[string]bool{
	"records": true, "record": true, "request": true, "requests": true, "documents": true,
	"document": true, "information": true, "files": true, "file": true, "the": true,
	"your": true, "you": true, "and": true, "for": true, "that": true, "this": true,
	"with": true, "are": true, "not": true, "response": true, "please": true, "will": true,
}

// selectivity rates a key set: its shortest literal's length, penalized when
// it is a common word. Only sets with selectivity >= 1 are usable.
func selectivity(xs []string) int {
	m := 1 << 30
	for _, x := range xs {
		l := len(x)
		if commonWords[strings.TrimSpace(x)] {
			l -= 5
		}
		m = min(m, l)
	}
	return max(m, 1)
}

func dedupe(xs []string) []string {
	sort.Strings(xs)
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// prefixLiterals returns the literals every match starts with (nil if
// unknown) and whether the pattern begins with a \b.
func prefixLiterals(p *syntax.Regexp) ([]string, bool) {
	if p.Op == syntax.OpConcat && len(p.Sub) > 1 && p.Sub[0].Op == syntax.OpWordBoundary {
		l, _ := prefixLiterals(&syntax.Regexp{Op: syntax.OpConcat, Sub: p.Sub[1:]})
		return l, l != nil
	}
	if p.Op == syntax.OpAlternate {
		var out []string
		for _, s := range p.Sub {
			l, b := prefixLiterals(s)
			if l == nil || b {
				return nil, false
			}
			out = append(out, l...)
		}
		return dedupe(out), false
	}
	if ex := exactLiterals(p); ex != nil {
		return ex, false
	}
	switch p.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return prefixLiterals(p.Sub[0])
	case syntax.OpRepeat:
		if p.Min >= 1 {
			return prefixLiterals(p.Sub[0])
		}
	case syntax.OpConcat:
		acc := []string{""}
		for _, s := range p.Sub {
			if ex := exactLiterals(s); ex != nil {
				if acc = cross(acc, ex); acc == nil {
					return nil, false
				}
				continue
			}
			if l, b := prefixLiterals(s); l != nil && !b {
				acc = cross(acc, l)
			}
			break
		}
		if acc == nil || acc[0] == "" && len(acc) == 1 {
			return nil, false
		}
		for _, a := range acc {
			if a == "" {
				return nil, false
			}
		}
		return dedupe(acc), false
	}
	return nil, false
}

// exactLiterals returns the finite set of strings p matches exactly, or nil.
func exactLiterals(p *syntax.Regexp) []string {
	switch p.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(p.Rune))}
	case syntax.OpCapture:
		return exactLiterals(p.Sub[0])
	case syntax.OpCharClass:
		var out []string
		for i := 0; i+1 < len(p.Rune); i += 2 {
			if p.Rune[i+1]-p.Rune[i] > 3 {
				return nil
			}
			for r := p.Rune[i]; r <= p.Rune[i+1]; r++ {
				out = append(out, strings.ToLower(string(r)))
			}
		}
		return dedupe(out)
	case syntax.OpAlternate:
		var out []string
		for _, s := range p.Sub {
			l := exactLiterals(s)
			if l == nil {
				return nil
			}
			out = append(out, l...)
		}
		return dedupe(out)
	case syntax.OpConcat:
		acc := []string{""}
		for _, s := range p.Sub {
			l := exactLiterals(s)
			if l == nil {
				return nil
			}
			if acc = cross(acc, l); acc == nil {
				return nil
			}
		}
		return acc
	}
	return nil
}

// cross concatenates every pair, nil when the set would exceed 64 strings.
func cross(a, b []string) []string {
	if len(a)*len(b) > 64 {
		return nil
	}
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out
}

func minLenOf(xs []string) int {
	m := 1 << 30
	for _, x := range xs {
		m = min(m, len(x))
	}
	return m
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// spans returns the regions of lower worth searching (nil: none): windows
// around the key occurrences a plain left-to-right scan finds (overlapping
// occurrences of one key are skipped).
func (f fastRe) spans(lower string, ix *gramIndex) [][2]int {
	if f.keys == nil {
		return [][2]int{{0, len(lower)}}
	}
	if f.anchored {
		for _, k := range f.keys {
			if ix != nil && ix.contains(k) || ix == nil && strings.Contains(lower, k) {
				return [][2]int{{0, len(lower)}}
			}
		}
		return nil
	}
	var pos, all []int
	for _, k := range f.keys {
		if ix != nil {
			n := len(pos)
			pos = ix.positions(k, pos)
			if f.shrink {
				all = append(all, pos[n:]...)
			}
			pos = dropOverlapping(pos, n, len(k))
			continue
		}
		for off := 0; ; {
			i := strings.Index(lower[off:], k)
			if i < 0 {
				break
			}
			pos = append(pos, off+i)
			off += i + len(k)
		}
		if f.shrink {
			all = offsets(lower, k, all)
		}
	}
	if len(pos) == 0 {
		return nil
	}
	sort.Ints(pos)
	var out [][2]int
	for _, p := range pos {
		lo, hi := max(0, p-window), min(len(lower), p+window)
		for lo > 0 && lower[lo-1] != ' ' && lower[lo-1] != '\n' {
			lo--
		}
		for hi < len(lower) && lower[hi] != ' ' && lower[hi] != '\n' {
			hi++
		}
		if n := len(out); n > 0 && lo <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], hi)
			continue
		}
		out = append(out, [2]int{lo, hi})
	}
	if !f.shrink {
		return out
	}
	return f.shrinkSpans(lower, out, all)
}

// shrinkSpans cuts the full windows big (ascending, disjoint) down to the
// parts where a match can lie: every match contains a key occurrence p (all,
// which includes occurrences a left-to-right scan skips) and, being at most
// f.win bytes and f.seps separators long, lies within both bounds around p
// and within p's full window. A scan of big finds no match outside the cut
// windows, none crossing their edges (such a match's own cut window would
// overlap and merge), and the same ones inside them, since every edge is a
// separator or the text's end (the same \b context); so the result of the
// windowed scan is unchanged.
func (f fastRe) shrinkSpans(lower string, big [][2]int, all []int) [][2]int {
	sort.Ints(all)
	var out [][2]int
	b := 0
	for _, p := range all {
		for b < len(big) && big[b][1] <= p {
			b++
		}
		if b == len(big) || p < big[b][0] {
			return big // not expected: every occurrence opens a full window
		}
		lo, hi := big[b][0], big[b][1]
		if f.win < window {
			l, h := max(0, p-f.win), min(len(lower), p+f.win)
			for l > 0 && !isSep(lower[l-1]) {
				l--
			}
			for h < len(lower) && !isSep(lower[h]) {
				h++
			}
			lo, hi = max(lo, l), min(hi, h)
		}
		if f.seps >= 0 {
			l, h := sepBounds(lower, p, f.seps)
			lo, hi = max(lo, l), min(hi, h)
		}
		if n := len(out); n > 0 && lo <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], hi)
			continue
		}
		out = append(out, [2]int{lo, hi})
	}
	return out
}

// dropOverlapping keeps, of the ascending occurrences pos[from:] of one key
// of length n, those a left-to-right scan resuming after each hit finds.
func dropOverlapping(pos []int, from, n int) []int {
	out := pos[:from]
	next := -1
	for _, p := range pos[from:] {
		if p >= next {
			out = append(out, p)
			next = p + n
		}
	}
	return out
}

// bigramBuckets is the size of a gramIndex's hash table and of a gramSet.
const bigramBuckets = 1024

// gramIndex lists, for one text, the offsets of every run of three
// bytes, so many patterns can look up their literal keys without rescanning
// the text (keys of one or two bytes are searched for directly). The
// offsets are grouped by a hash of the three bytes (a counting sort: one
// pass to count, one to place), ascending within each group.
type gramIndex struct {
	text  string
	start [bigramBuckets + 1]int32 // group b is at[start[b]:start[b+1]]
	at    []int32
	hash  []uint16 // scratch: the group of each run, while building
}

func bigramHash(a, b byte) int { return (int(a)*131 + int(b)) & (bigramBuckets - 1) }

func trigramHash(a, b, c byte) int {
	return ((int(a)*131+int(b))*131 + int(c)) & (bigramBuckets - 1)
}

// gramIndexes recycles indexes (release), whose tables are most of what a
// reply's analysis allocates.
var gramIndexes = sync.Pool{New: func() any { return new(gramIndex) }}

func newGramIndex(text string) *gramIndex {
	ix := gramIndexes.Get().(*gramIndex)
	ix.text, ix.start, ix.at = text, [bigramBuckets + 1]int32{}, ix.at[:0]
	if len(text) < 3 {
		return ix
	}
	// One pass hashes each run (kept in hash) and counts the groups' sizes.
	n := len(text) - 2
	if cap(ix.hash) < n {
		ix.hash = make([]uint16, n)
	}
	hash := ix.hash[:n]
	a, b := text[0], text[1]
	for i := range hash {
		c := text[i+2]
		h := trigramHash(a, b, c)
		hash[i] = uint16(h)
		ix.start[h+1]++
		a, b = b, c
	}
	for b := 1; b <= bigramBuckets; b++ {
		ix.start[b] += ix.start[b-1]
	}
	var fill [bigramBuckets]int32
	copy(fill[:], ix.start[:bigramBuckets])
	if cap(ix.at) < n {
		ix.at = make([]int32, n)
	}
	ix.at = ix.at[:n]
	for i, h := range hash {
		ix.at[fill[h]] = int32(i)
		fill[h]++
	}
	return ix
}

// release hands ix back for reuse; ix must not be used after.
func (ix *gramIndex) release() {
	ix.text = ""
	gramIndexes.Put(ix)
}

// offsets appends to pos every offset where key occurs in s, ascending
// (overlapping occurrences included).
func offsets(s, key string, pos []int) []int {
	for off := 0; ; {
		i := strings.Index(s[off:], key)
		if i < 0 {
			return pos
		}
		pos = append(pos, off+i)
		off += i + 1
	}
}

// positions appends the offsets where key occurs, ascending (overlapping
// occurrences included).
func (ix *gramIndex) positions(key string, pos []int) []int {
	if len(key) < 3 {
		return offsets(ix.text, key, pos)
	}
	h := trigramHash(key[0], key[1], key[2])
	for _, p := range ix.at[ix.start[h]:ix.start[h+1]] {
		if strings.HasPrefix(ix.text[p:], key) {
			pos = append(pos, int(p))
		}
	}
	return pos
}

// contains reports whether key occurs in the indexed text.
func (ix *gramIndex) contains(key string) bool {
	if len(key) < 3 {
		return strings.Contains(ix.text, key)
	}
	h := trigramHash(key[0], key[1], key[2])
	for _, p := range ix.at[ix.start[h]:ix.start[h+1]] {
		if strings.HasPrefix(ix.text[p:], key) {
			return true
		}
	}
	return false
}

// containsIn reports whether key (at least three bytes) occurs within
// text[lo:hi] of the indexed text.
func (ix *gramIndex) containsIn(key string, lo, hi int) bool {
	h := trigramHash(key[0], key[1], key[2])
	group := ix.at[ix.start[h]:ix.start[h+1]]
	i, _ := slices.BinarySearch(group, int32(lo))
	for _, p := range group[i:] {
		if int(p)+len(key) > hi {
			return false
		}
		if strings.HasPrefix(ix.text[p:], key) {
			return true
		}
	}
	return false
}

// findAll returns up to n match index pairs in lower (all of them when n
// < 0, as regexp's FindAll does), in order.
func (f fastRe) findAll(lower string, n int) [][]int {
	return f.findAllOpt(lower, nil, n)
}

// findAllIn is findAll(ix.text, n), looking keys up in the index instead
// of scanning for each.
func (f fastRe) findAllIn(ix *gramIndex, n int) [][]int {
	return f.findAllOpt(ix.text, ix, n)
}

func (f fastRe) findAllOpt(lower string, ix *gramIndex, n int) [][]int {
	if n < 0 {
		n = math.MaxInt
	}
	var out [][]int
	if f.atStart != nil {
		// A branch's start literals hold unless a case-folded one meets
		// the non-ASCII folds of k or s; so does its gate.
		folds := (f.byBranch || f.asciiGates) && (strings.Contains(lower, "\u017f") || strings.Contains(lower, "\u212a"))
		var live []bool
		if f.asciiGates && !folds {
			if live = f.liveBranches(lower, ix); live == nil {
				return nil
			}
			if !f.byBranch {
				live = nil
			}
		}
		var pos []int
		for _, k := range f.prefix {
			if ix != nil {
				pos = ix.positions(k, pos)
				continue
			}
			pos = offsets(lower, k, pos)
		}
		sort.Ints(pos)
		trusted := f.byBranch && !folds
		last := -1
		for _, p := range pos {
			if p < last || (p > 0 && pos[0] >= 0 && f.prefixWordB && isWordByte(lower[p-1])) {
				continue
			}
			end := min(len(lower), p+f.atLimit)
			if f.seps >= 0 && f.atLimit == maxMatch {
				// The match ends by the seps+1'th separator from p, whose
				// \b context is that of the text's end.
				_, h := sepBounds(lower, p, f.seps)
				end = min(end, h)
			}
			if m := f.atStartMatch(lower[:end], p, trusted, live); m != nil {
				out = append(out, m)
				last = max(m[1], p+1)
				if len(out) >= n {
					return out
				}
			}
		}
		return out
	}
	for _, sp := range f.spans(lower, ix) {
		for _, m := range f.findAllInWindow(lower[sp[0]:sp[1]], n) {
			out = append(out, []int{m[0] + sp[0], m[1] + sp[0]})
			if len(out) >= n {
				return out
			}
		}
	}
	return out
}

// atStartMatch is the match f.atStart finds at s[p:] (offsets in s), or
// nil. With byBranch, it is the match of the first of the pattern's
// top-level branches, in order, that matches at p (the regexp's
// leftmost-first preference), each branch running alone on a small program
// and, when trusted, only where one of its start literals begins at p.
// live, when not nil, marks the branches that can match in s
// (liveBranches); the others are not run.
func (f fastRe) atStartMatch(s string, p int, trusted bool, live []bool) []int {
	if !f.byBranch {
		if m := f.atStart.FindStringIndex(s[p:]); m != nil {
			return []int{p, p + m[1]}
		}
		return nil
	}
	for i := range f.alts {
		st := &f.alts[i].start
		if live != nil && !live[i] || trusted && (st.first[s[p]] == 0 || !st.hasPrefixAt(s, p)) {
			continue
		}
		if m := st.matchAt(s, p, false); m != nil {
			return m
		}
	}
	return nil
}

// liveBranches returns, for each of f's top-level branches, whether its
// gate passes on lower (a branch whose gate fails matches nowhere in it),
// or nil when none does (the pattern matches nowhere in lower). ix, when not nil, indexes lower. Only for
// asciiGates, and a lower that does not hold the non-ASCII folds of k or
// s, which the gates' literals miss.
func (f fastRe) liveBranches(lower string, ix *gramIndex) []bool {
	live := make([]bool, len(f.alts))
	any := false
	for i := range f.alts {
		live[i] = f.alts[i].passes(lower, ix, 0, nil)
		any = any || live[i]
	}
	if !any {
		return nil
	}
	return live
}

// findAllInWindow is f.re.FindAllStringIndex(s, n) computed from the
// pattern's branches: each branch whose gate passes finds its matches, and
// the leftmost are kept without overlaps, earlier branches first on a tie
// (the regexp's leftmost-first preference). Where one branch's match would
// hide another's, the result can differ from the whole pattern's in which
// overlapping match is reported; for cue and fact extraction either is
// right.
func (f fastRe) findAllInWindow(s string, n int) [][]int {
	if len(f.alts) == 1 {
		return f.alts[0].start.findAll(s, n)
	}
	if len(f.alts) < 2 {
		return f.re.FindAllStringIndex(s, n)
	}
	type cand struct {
		m   []int
		alt int
	}
	var cs []cand
	for i := range f.alts {
		a := &f.alts[i]
		if !a.passes(s, nil, 0, nil) {
			continue
		}
		for _, m := range a.start.findAll(s, n) {
			cs = append(cs, cand{m, i})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].m[0] != cs[j].m[0] {
			return cs[i].m[0] < cs[j].m[0]
		}
		return cs[i].alt < cs[j].alt
	})
	var out [][]int
	end := -1
	for _, c := range cs {
		if c.m[0] < end || c.m[0] == end && c.m[1] == c.m[0] && len(out) > 0 {
			continue
		}
		out = append(out, c.m)
		end = c.m[1]
		if len(out) >= n {
			break
		}
	}
	return out
}

// linesHolding returns, for each line of lower (lines: its "\n"-separated
// lines, in order), whether the line holds one of f's keys; nil when f has
// no keys (then every line may match). A line without a key holds no match
// of f (keys hold no "\n", so an occurrence lies within one line). ix,
// when not nil, indexes lower.
func (f fastRe) linesHolding(lower string, lines []string, ix *gramIndex) []bool {
	for _, k := range f.keys {
		if k == "" || strings.Contains(k, "\n") {
			return nil
		}
	}
	if f.keys == nil {
		return nil
	}
	out := make([]bool, len(lines))
	var pos []int
	for _, k := range f.keys {
		if ix != nil {
			pos = ix.positions(k, pos[:0])
		} else {
			pos = offsets(lower, k, pos[:0])
		}
		line, lineEnd := 0, len(lines[0])
		for _, p := range pos {
			for p > lineEnd {
				line++
				lineEnd += 1 + len(lines[line])
			}
			out[line] = true
		}
	}
	return out
}

// mayMatchLine reports whether line i can hold a match (holding from
// linesHolding).
func mayMatchLine(holding []bool, i int) bool { return holding == nil || holding[i] }

// match reports whether lower contains a match.
func (f fastRe) match(lower string) bool { return len(f.findAll(lower, 1)) > 0 }

// fre compiles pattern into a fastRe; explicit keys replace the derived ones
// (use them when the pattern's own literals are too short, e.g. "@").
func fre(pattern string, keys ...string) fastRe {
	f := newFastRe(regexp.MustCompile(pattern))
	if len(keys) > 0 {
		// Explicit keys need not occur in a match: keep the full window.
		f.keys, f.win, f.shrink = keys, window, false
	}
	return f
}

// findIn, matchIn and submatchesIn are find, match and submatches on an
// indexed text.
func (f fastRe) findIn(ix *gramIndex) string {
	if m := f.findAllIn(ix, 1); len(m) > 0 {
		return ix.text[m[0][0]:m[0][1]]
	}
	return ""
}

func (f fastRe) matchIn(ix *gramIndex) bool { return len(f.findAllIn(ix, 1)) > 0 }

func submatchesIn(f fastRe, ix *gramIndex, n int) [][]int {
	return submatchesOf(f, ix.text, f.findAllIn(ix, n))
}

func submatchesOf(f fastRe, lower string, ms [][]int) [][]int {
	var out [][]int
	for _, m := range ms {
		sm := f.re.FindStringSubmatchIndex(lower[m[0]:m[1]])
		if sm == nil {
			continue
		}
		for i := range sm {
			if sm[i] >= 0 {
				sm[i] += m[0]
			}
		}
		out = append(out, sm)
	}
	return out
}

// fullRe runs a regexp over whole texts with exactly the results of
// re.FindAllStringSubmatchIndex(s, -1), scanning only the parts of s where a
// match can lie: around occurrences of its required literals (keys, which
// may be one byte long here), within the pattern's byte and separator bounds.
// A text with none of the keys has no match. Window edges are separators or
// the text's ends, where \b sees what it sees in the whole text, and no match
// crosses them, so the scan decomposes. Patterns without keys or bounds, and
// case-folded patterns on texts holding the non-ASCII folds of k and s (which
// lower-cased key lookups would miss), are scanned whole. A pattern whose
// matches start with a few literals (start) runs anchored at their
// occurrences in a window or text instead of at every byte.
type fullRe struct {
	fastRe
	fold bool
	// rev, for a pattern every match of which ends at the text's end
	// ("…$"), is the pattern reversed (reversedRe) and so anchored at its
	// start: matchString runs it once on the text's runes in reverse order
	// instead of trying the pattern at every byte. nil otherwise.
	rev *regexp.Regexp
	// start finds the matches from the literals they start with, where
	// the pattern has them (start.at not nil), instead of trying the
	// pattern at every byte of a window.
	start startRe
}

func newFullRe(pattern string) fullRe {
	re := regexp.MustCompile(pattern)
	f := fullRe{fastRe: fastRe{re: re, win: window, atLimit: maxMatch, seps: -1}}
	p, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return f
	}
	f.fold = hasFoldCase(p)
	f.start = newStartRe(re)
	if endsAtTextEnd(p) {
		f.rev = regexp.MustCompile(reversedRe(p).String())
	}
	f.keys = requiredLiterals(p.Simplify())
	for _, k := range f.keys {
		if k == "" {
			f.keys = nil
		}
	}
	l, lok := maxLenOf(p)
	n, sok := maxSepsOf(p)
	f.win = window << 20
	if lok {
		f.win = l
	}
	if sok {
		f.seps = n
	}
	f.shrink = f.keys != nil && (lok || sok) && !hasAnchor(p)
	return f
}

func hasFoldCase(p *syntax.Regexp) bool {
	if p.Flags&syntax.FoldCase != 0 {
		return true
	}
	for _, s := range p.Sub {
		if hasFoldCase(s) {
			return true
		}
	}
	return false
}

// allSubmatchIndex is re.FindAllStringSubmatchIndex(s, -1); lower is
// asciiLower(s) (or s itself when the caller knows it is lower-case).
func (f fullRe) allSubmatchIndex(s, lower string) [][]int {
	return f.allSubmatchIndexOpt(s, lower, nil)
}

// allSubmatchIndexIn is allSubmatchIndex(s, ix.text), looking keys up in
// the index instead of scanning for each (ix indexes asciiLower(s)).
func (f fullRe) allSubmatchIndexIn(s string, ix *gramIndex) [][]int {
	return f.allSubmatchIndexOpt(s, ix.text, ix)
}

// allSubmatchIndexOpt is re.FindAllStringSubmatchIndex(s, -1), scanning
// only the windows around f's keys in lower (asciiLower(s)); ix, when not
// nil, indexes lower and the keys are looked up in it.
func (f fullRe) allSubmatchIndexOpt(s, lower string, ix *gramIndex) [][]int {
	spans, whole := f.windows(s, lower, ix)
	if whole {
		return f.allIn(s, -1)
	}
	var out [][]int
	for _, sp := range spans {
		for _, m := range f.allIn(s[sp[0]:sp[1]], -1) {
			for i := range m {
				if m[i] >= 0 {
					m[i] += sp[0]
				}
			}
			out = append(out, m)
		}
	}
	return out
}

// allIn is f.re.FindAllStringSubmatchIndex(s, n), run from the start
// literals where the pattern has them.
func (f fullRe) allIn(s string, n int) [][]int {
	if f.start.at == nil {
		return f.re.FindAllStringSubmatchIndex(s, n)
	}
	if n < 0 {
		n = math.MaxInt
	}
	return f.start.findAllSubmatch(s, n)
}

// windows returns the parts of s a scan for f's matches may be limited to
// (none: s has no match), or whole when s must be scanned whole. ix, when
// not nil, indexes lower.
func (f fullRe) windows(s, lower string, ix *gramIndex) (spans [][2]int, whole bool) {
	if !f.shrink || f.fold && (strings.Contains(s, "\u017f") || strings.Contains(s, "\u212a")) {
		return nil, true
	}
	var all []int
	for _, k := range f.keys {
		if ix != nil {
			all = ix.positions(k, all)
			continue
		}
		all = offsets(lower, k, all)
	}
	if len(all) == 0 {
		return nil, false
	}
	return f.shrinkSpans(lower, [][2]int{{0, len(lower)}}, all), false
}

// endsAtTextEnd reports whether every match of p ends at the text's end:
// p is a concatenation ending in $ (without (?m)), or a capture or
// alternation of such.
func endsAtTextEnd(p *syntax.Regexp) bool {
	switch p.Op {
	case syntax.OpConcat:
		return len(p.Sub) > 0 && p.Sub[len(p.Sub)-1].Op == syntax.OpEndText
	case syntax.OpCapture:
		return endsAtTextEnd(p.Sub[0])
	case syntax.OpAlternate:
		for _, s := range p.Sub {
			if !endsAtTextEnd(s) {
				return false
			}
		}
		return len(p.Sub) > 0
	}
	return false
}

// reversedRe returns a pattern that matches the rune-reversed forms of
// the texts p matches: concatenations and literals run backwards and the
// text and line anchors trade places (\b is the same both ways; which
// match is preferred, and so the submatches, are not kept: only whether
// one exists).
func reversedRe(p *syntax.Regexp) *syntax.Regexp {
	q := *p
	q.Sub = make([]*syntax.Regexp, len(p.Sub))
	for i, s := range p.Sub {
		q.Sub[i] = reversedRe(s)
	}
	switch p.Op {
	case syntax.OpLiteral:
		q.Rune = slices.Clone(p.Rune)
		slices.Reverse(q.Rune)
	case syntax.OpConcat:
		slices.Reverse(q.Sub)
	case syntax.OpBeginText:
		q.Op = syntax.OpEndText
	case syntax.OpEndText:
		q.Op = syntax.OpBeginText
	case syntax.OpBeginLine:
		q.Op = syntax.OpEndLine
	case syntax.OpEndLine:
		q.Op = syntax.OpBeginLine
	}
	return &q
}

// reverseRunes returns s with its runes in reverse order, and false when s
// is not valid UTF-8 (reversed bytes of broken runes could join into a
// rune).
func reverseRunes(s string) ([]byte, bool) {
	if !utf8.ValidString(s) {
		return nil, false
	}
	out := make([]byte, len(s))
	for i := 0; i < len(s); {
		_, w := utf8.DecodeRuneInString(s[i:])
		copy(out[len(s)-i-w:], s[i:i+w])
		i += w
	}
	return out, true
}

// matchString is re.MatchString(s); lower is asciiLower(s). Where the
// windows of allSubmatchIndex apply, only they are scanned; a pattern that
// ends at the text's end runs reversed (rev) on the reversed text.
func (f fullRe) matchString(s, lower string) bool {
	if f.rev != nil {
		if !f.mayHoldKey(s, lower, nil) {
			return false
		}
		if r, ok := reverseRunes(s); ok {
			return f.rev.Match(r)
		}
		return f.re.MatchString(s)
	}
	if f.shrink {
		spans, whole := f.windows(s, lower, nil)
		if !whole {
			for _, sp := range spans {
				if f.matchesIn(s[sp[0]:sp[1]]) {
					return true
				}
			}
			return false
		}
	}
	return f.mayHoldKey(s, lower, nil) && f.matchesIn(s)
}

// matchesIn is f.re.MatchString(s), run from the start literals where
// the pattern has them.
func (f fullRe) matchesIn(s string) bool {
	if f.start.at == nil {
		return f.re.MatchString(s)
	}
	return len(f.start.findAll(s, 1)) > 0
}

// submatchIndexIn is re.FindStringSubmatchIndex(s); ix indexes
// asciiLower(s). Where the windows of allSubmatchIndex apply, only they are
// scanned (the first window with a match holds the leftmost one).
func (f fullRe) submatchIndexIn(s string, ix *gramIndex) []int {
	if f.shrink {
		spans, whole := f.windows(s, ix.text, ix)
		if !whole {
			for _, sp := range spans {
				if ms := f.allIn(s[sp[0]:sp[1]], 1); ms != nil {
					m := ms[0]
					for i := range m {
						if m[i] >= 0 {
							m[i] += sp[0]
						}
					}
					return m
				}
			}
			return nil
		}
	}
	if !f.mayHoldKey(s, ix.text, ix) {
		return nil
	}
	if ms := f.allIn(s, 1); ms != nil {
		return ms[0]
	}
	return nil
}

// mayHoldKey reports whether s may hold a match of f as its keys tell: f
// has none, s holds the non-ASCII folds of k or s, or lower (asciiLower(s),
// indexed by ix when not nil) holds a key.
func (f fullRe) mayHoldKey(s, lower string, ix *gramIndex) bool {
	if f.keys == nil || f.fold && (strings.Contains(s, "\u017f") || strings.Contains(s, "\u212a")) {
		return true
	}
	for _, k := range f.keys {
		if ix != nil && ix.contains(k) || ix == nil && strings.Contains(lower, k) {
			return true
		}
	}
	return false
}
