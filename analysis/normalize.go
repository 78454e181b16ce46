package analysis

import (
	"html"
	"regexp"
	"strings"
	"unicode/utf8"
)

// normalize repairs the text damage agency replies arrive with: UTF-8 that
// was decoded as Latin-1 ("â\u0080\u0099" for "’"), typographic quotes and
// dashes, HTML entities left in plain text ("&nbsp;", "&amp;"),
// non-breaking and zero-width spaces, vulgar fractions ("1 ¼ hours"),
// CRLF line ends, trailing padding and common OCR slips ("hitps://",
// "| have"). Offsets into the result are what every later stage works on.
func normalize(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = fixMojibake(s)
	if strings.IndexByte(s, '&') >= 0 {
		// Plain text cut from HTML keeps its entities ("no&nbsp;records",
		// "Fish &amp; Wildlife"). Only entities closed by ";" are
		// decoded: a URL's "&section=" is not "§ion=".
		s = entityRe.ReplaceAllStringFunc(s, html.UnescapeString)
	}
	if needsCharReplacer(s) {
		s = charReplacer.Replace(s)
	}
	if hasFraction(s) {
		s = fractionRe.ReplaceAllStringFunc(s, func(m string) string {
			whole := strings.TrimSpace(strings.TrimRight(m, "¼½¾"))
			frac := map[string]string{"¼": ".25", "½": ".5", "¾": ".75"}[strings.TrimLeft(m[len(m)-2:], " ")]
			if whole == "" {
				whole = "0"
			}
			return whole + frac
		})
	}
	s = fixPipeI(s)
	s = strings.ReplaceAll(s, "hitps://", "https://")
	s = strings.ReplaceAll(s, "hitp://", "http://")
	if hasContraction(s) {
		s = contractions.Replace(s)
	}
	return squeezeSpaces(s)
}

// entityRe is an HTML character reference closed by ";".
var entityRe = regexp.MustCompile(`&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{1,31});`)

// contractions are spelt out so that one cue reads both forms ("we don't
// hold" is "we do not hold").
var contractions = strings.NewReplacer(
	"don't", "do not", "Don't", "Do not", "doesn't", "does not", "Doesn't", "Does not",
	"didn't", "did not", "Didn't", "Did not", "can't", "cannot", "Can't", "Cannot",
	"won't", "will not", "Won't", "Will not", "isn't", "is not", "aren't", "are not",
	"wasn't", "was not", "weren't", "were not", "haven't", "have not", "hasn't", "has not",
	"hadn't", "had not", "couldn't", "could not", "wouldn't", "would not", "shouldn't", "should not",
	"we're", "we are", "We're", "We are", "we've", "we have", "We've", "We have",
	"we'll", "we will", "We'll", "We will", "I'll", "I will", "I'm", "I am", "I've", "I have",
	"you're", "you are", "You're", "You are", "you'll", "you will", "You'll", "You will",
)

// hasContraction reports whether s may hold one of contractions' keys:
// each ends in "n't", "'re", "'ve", "'ll" or "'m".
func hasContraction(s string) bool {
	for _, t := range []string{"n't", "'re", "'ve", "'ll", "'m"} {
		if strings.Contains(s, t) {
			return true
		}
	}
	return false
}

// needsCharReplacer reports whether s holds a byte charReplacer replaces:
// a tab, a "*" or any non-ASCII byte (all its other keys are non-ASCII).
func needsCharReplacer(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || c == '\t' || c == '*' {
			return true
		}
	}
	return false
}

// hasFraction reports whether s holds ¼, ½ or ¾ (C2 BC, C2 BD, C2 BE).
func hasFraction(s string) bool { return hasPairAfter(s, 0xc2, 0xbc, 0xbd, 0xbe) }

// hasPairAfter reports whether s holds the byte lead followed by one of
// next. lead is a UTF-8 lead byte, which never continues another
// sequence, so in valid or invalid UTF-8 alike this is whether s holds one
// of those two-byte runes.
func hasPairAfter(s string, lead byte, next ...byte) bool {
	for i := strings.IndexByte(s, lead); i >= 0 && i+1 < len(s); {
		for _, n := range next {
			if s[i+1] == n {
				return true
			}
		}
		j := strings.IndexByte(s[i+1:], lead)
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// squeezeSpaces collapses runs of spaces and drops trailing spaces per line
// (s itself when it has none of either).
func squeezeSpaces(s string) string {
	if !strings.Contains(s, "  ") && !strings.Contains(s, " \n") && !strings.HasSuffix(s, " ") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	pending := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ':
			pending = true
		case '\n':
			pending = false
			b.WriteByte(c)
		default:
			if pending {
				b.WriteByte(' ')
				pending = false
			}
			b.WriteByte(c)
		}
	}
	return b.String()
}

var (
	charReplacer = strings.NewReplacer(
		"\u2018", "'", "\u2019", "'", "\u201a", "'", "\u201b", "'",
		"\u201c", "\"", "\u201d", "\"", "\u201e", "\"",
		"\u2013", "-", "\u2014", "-", "\u2012", "-", "\u2212", "-",
		"\u00a0", " ", "\u2002", " ", "\u2003", " ", "\u2009", " ", "\u202f", " ",
		"\u200b", "", "\u200c", "", "\u200d", "", "\ufeff", "", "\ufffe", "", "\ufffd", "",
		"\u00b7", "-", "\u2022", "-", "\t", " ",
		"Â§", "§", "Â", "",
		"*", "", // emphasis markers from HTML-to-text ("*39 months*")
	)
	fractionRe = regexp.MustCompile(`(\d+ ?)?[¼½¾]`)
)

// fixPipeI reads an OCR'd "| " as "I " where it opens the text or follows
// white space or a dot ("| have", "records.| am"), as replacing the matches
// of `(^|[\s.])\| ` with "${1}I " does: a "| " whose byte before was the
// space of the previous one ("| | ") stays. It returns s itself when s
// holds none. (A regexp without a literal to start from tried every byte
// of the reply.)
func fixPipeI(s string) string {
	var b strings.Builder
	done := 0 // s[:done] is written or replaced
	for i := 0; ; {
		j := strings.Index(s[i:], "| ")
		if j < 0 {
			break
		}
		j += i
		i = j + 2
		if j > 0 && (j-1 < done || !isPipeIBefore(s[j-1])) {
			continue
		}
		b.WriteString(s[done:j])
		b.WriteString("I ")
		done = j + 2
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// isPipeIBefore reports whether c may precede an OCR'd "| ": white space
// (regexp's \s) or a dot.
func isPipeIBefore(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == '.'
}

// fixMojibake re-decodes runs of U+0080–U+00FF that form valid UTF-8 when
// read back as bytes (the classic Latin-1 misdecoding).
func fixMojibake(s string) string {
	if !hasPairAfter(s, 0xc3, 0x82, 0x83, 0xa2, 0xaf) {
		// None of Â, Ã, â, ï (C3 82, C3 83, C3 A2, C3 AF).
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	rs := []rune(s)
	for i := 0; i < len(rs); {
		if rs[i] < 0x80 || rs[i] > 0xff {
			b.WriteRune(rs[i])
			i++
			continue
		}
		j := i
		for j < len(rs) && rs[j] >= 0x80 && rs[j] <= 0xff {
			j++
		}
		raw := make([]byte, 0, j-i)
		for _, r := range rs[i:j] {
			raw = append(raw, byte(r))
		}
		if utf8.Valid(raw) {
			b.Write(raw)
		} else {
			// Partially damaged run: repair the valid prefix sequences only.
			for len(raw) > 0 {
				r, n := utf8.DecodeRune(raw)
				if r == utf8.RuneError {
					b.WriteRune(rune(raw[0]))
					raw = raw[1:]
					continue
				}
				b.WriteRune(r)
				raw = raw[n:]
			}
		}
		i = j
	}
	return b.String()
}
