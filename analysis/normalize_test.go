package analysis

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestFixPipeIAgreesWithRegexp: fixPipeI replaces what `(^|[\s.])\| `
// matches, as ReplaceAllString with "${1}I " does, on random texts of the
// bytes that matter.
func TestFixPipeIAgreesWithRegexp(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`(^|[\s.])\| `)
	alphabet := []byte{'|', ' ', '.', '\n', '\t', '\f', '\r', '\v', 'a', 0xc2, 0xa0}
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 50000; n++ {
		b := make([]byte, rng.IntN(10))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		s := string(b)
		if got, want := fixPipeI(s), re.ReplaceAllString(s, "${1}I "); got != want {
			t.Fatalf("fixPipeI(%q) = %q, regexp %q", s, got, want)
		}
	}
}

// TestNormalizeGatesAgreeWithContainsAny: the byte-level checks normalize
// uses to skip work answer exactly what strings.ContainsAny answers for
// the runes they stand for, on valid and invalid UTF-8 alike.
func TestNormalizeGatesAgreeWithContainsAny(t *testing.T) {
	t.Parallel()
	alphabet := []byte{'a', ' ', '\t', '*', 0xc2, 0xc3, 0xe2, 0x80, 0x82, 0x83, 0xa2, 0xaf, 0xbc, 0xbd, 0xbe, 0xbf}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 20000; n++ {
		b := make([]byte, rng.IntN(8))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		s := string(b)
		if got, want := hasFraction(s), strings.ContainsAny(s, "¼½¾"); got != want {
			t.Fatalf("hasFraction(%q) = %v, ContainsAny %v", s, got, want)
		}
		if got, want := hasPairAfter(s, 0xc3, 0x82, 0x83, 0xa2, 0xaf), strings.ContainsAny(s, "\u00c2\u00c3\u00e2\u00ef"); got != want {
			t.Fatalf("mojibake gate on %q = %v, ContainsAny %v", s, got, want)
		}
		if !needsCharReplacer(s) && charReplacer.Replace(s) != s {
			t.Fatalf("charReplacer changes %q, which the gate skips", s)
		}
	}
}

// Plain text cut from HTML keeps its entities; they are decoded before
// anything reads the words ("no&nbsp;records" is "no records").
func TestNormalizeDecodesEntities(t *testing.T) {
	t.Parallel()
	if got, want := normalize("We&nbsp;have no records. Fish &amp; Wildlife&#8217;s office"), "We have no records. Fish & Wildlife's office"; got != want {
		t.Errorf("normalize = %q, want %q", got, want)
	}
	// Only references closed by ";": a URL's "&section=" stays as sent.
	if got, want := normalize("https://city.govqa.us/supporthome.aspx?sSessionID=1&section=records&amp;x=2"), "https://city.govqa.us/supporthome.aspx?sSessionID=1&section=records&x=2"; got != want {
		t.Errorf("normalize = %q, want %q", got, want)
	}
	if a := analyze(t, "We&nbsp;have&nbsp;no&nbsp;records&nbsp;responsive&nbsp;to&nbsp;your&nbsp;request."); a.Class != cNone {
		t.Errorf("entity-spaced reply: %s, want NO_RECORDS", a.Class)
	}
}
