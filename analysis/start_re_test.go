package analysis

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/foiaflow/foiaflow/dataset"
)

// TestStartReFindsWhatTheRegexpFinds: for every alternative of the cue
// table, the injection rules, the exemption pattern, the confidentiality
// notice's words (disclaimerBodyRe), the referral pattern (referredRe)
// and the fullRe patterns that run from their prefixes (the money,
// sentence-stop, deadline-cue, limit-noun and active-release pages
// patterns among them), startRe.findAll
// returns exactly regexp's FindAllStringIndex (and findAllSubmatch its
// FindAllStringSubmatchIndex) on the project's replies
// (lower-cased as the analyzer reads them, and as written, and with the
// non-ASCII folds of k and s), and on texts made to hit the \b, anchor,
// fold and length-limit edges.
func TestStartReFindsWhatTheRegexpFinds(t *testing.T) {
	t.Parallel()
	var alts []alternative
	for _, ru := range rules {
		alts = append(alts, ru.alts...)
	}
	for _, ir := range injectionRules {
		alts = append(alts, ir.re.alts...)
	}
	alts = append(alts, exemptionRe.alts...)
	for _, st := range []startRe{disclaimerBodyRe, referredRe} {
		if st.at == nil {
			t.Fatalf("%s does not run from its prefixes", st.re)
		}
		alts = append(alts, alternative{re: st.re, start: st})
	}
	for _, f := range []fullRe{dateDMY, dateSlash, dateISO, portalCueRe, fileShareRe, pagesReviewedRe, pagesOfRe, payAskRe, moneyRe, sentenceStopR, deadlineCue, limitNounRe, pagesActiveRe} {
		if f.start.at == nil {
			t.Fatalf("%s does not run from its prefixes", f.re)
		}
		alts = append(alts, alternative{re: f.re, start: f.start})
	}
	extra := []string{`(?i)\bsection \d+`, `(?i)(fee|cost)s? of \$\d+`, `\b(k|s)ey\b`, `(?i)ks\b`, `ab[^x]`,
		`(\bkey|\bsection) \d`, `(?i)(\bfees?|\bcosts?) of`, // branches that all start with \b
		`(?i)\bgov ?qa\b|mycusthelp`, `(?i)(\bfees?|costs?) of`, `(\bkey|ks)\b`, `(ab|\Bkey)`, // some do: atCtx
		`(?i)(€|£|\bx) ?\d+`, `(?i)ab€|abé`, // literals that are not ASCII, with and without case forms
		`key([^a-z]|$)`, `(?m)key$|ab`, `(?m)ab\n^key`, `(ab|^key) \d`, `ab\s*$`} // anchors
	for _, p := range extra {
		re := regexp.MustCompile(p)
		alts = append(alts, alternative{re: re, start: newStartRe(re)})
	}
	anchored := 0
	for _, a := range alts {
		if a.start.at != nil {
			anchored++
		}
	}
	if anchored < len(alts)*3/4 {
		t.Fatalf("only %d of %d alternatives run from their prefixes", anchored, len(alts))
	}

	replies, err := dataset.AllReplies()
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for i, r := range replies {
		s := normalize(r.Text)
		if i%8 != 0 {
			s = s[:min(len(s), 600)]
		}
		texts = append(texts, asciiLower(s))
		if i%10 == 0 {
			texts = append(texts, s, strings.NewReplacer("s", "\u017f", "k", "\u212a").Replace(asciiLower(s)))
		}
	}
	texts = append(texts, "Section 12 SECTION 3 xsection 4 ſection 5 Key key skey ks Ks KS ſ ab€ ab\u00e9x abx",
		"fees of $12 COST OF $3 Fee of $4", "xfees of 1 costs of 2 xcosts of 3 £4 €5 x6 ax7 X 8 gov qa govqa xgovqa mycusthelp ABÉ abé ab€ AB€ skey ks xks",
		"ke\u00e9key ab\u00e9key xkey € 9", "key", "ab", "key 1\nab\nkey\nxkey 2 ab  ", "ab\nkey 3 key", "ab \n",
		"we located 120 pages and are releasing 96 pages", "we located 120 pages and are releasing 96 pages in full.", "12/3/2024 1/2/24x 3 Jan 2024, 03 JAN. 2024 x2024-02-30 2024-02-301 9 of 12 pages released",
		"120 pages were reviewed and 96 pages are released; 1,200 pages were processed. 4 pages were released", "ab\u20ac", "ab", "xsection 9", "skey", "a \u212as b", "co\u017ft of $5 fee\u017f of $6")
	for _, a := range alts {
		for _, s := range texts {
			want := a.re.FindAllStringIndex(s, 8)
			if got := a.start.findAll(s, 8); !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("%s on %q:\n got %v\nwant %v", a.re, clip(s, 200), got, want)
			}
			want = a.re.FindAllStringSubmatchIndex(s, 8)
			if got := a.start.findAllSubmatch(s, 8); !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("%s submatches on %q:\n got %v\nwant %v", a.re, clip(s, 200), got, want)
			}
		}
	}
	if testing.Verbose() {
		fmt.Printf("%d alternatives (%d anchored) × %d texts\n", len(alts), anchored, len(texts))
	}
}

// TestContainsFoldIsCaseInsensitiveContains: containsFold agrees with
// (?i)literal on texts mixing cases, for literals without k or s.
func TestContainsFoldIsCaseInsensitiveContains(t *testing.T) {
	t.Parallel()
	for _, lit := range []string{"attached c", "[attach", "a", "ab"} {
		re := regexp.MustCompile(`(?i)` + regexp.QuoteMeta(lit))
		for _, s := range []string{"", "a", "A", "xAtTaChEd Correspondence", "attached", "[ATTACHMENTS: a.pdf]", "[Attach", "b", "aB", "\u212a ab", "ATTACHED\u00a0C", "attached  c",
			"[", "[x [attac", "x[ATTAC", "[[ATTACH", "[ [ [x] [attacH"} {
			if got, want := containsFold(s, lit), re.MatchString(s); got != want {
				t.Errorf("containsFold(%q, %q) = %v, (?i) regexp says %v", s, lit, got, want)
			}
		}
	}
}

// TestLeadGatesKeepEveryMatch: wherever courtesyRe matches at a sentence
// start, or disclaimerRe or valedictionRe at a line start, of the project's
// replies (as written and upper-cased) or of hand-made lines, the pattern's
// lead gate lets the text through; and each gate does turn ordinary
// sentences away.
func TestLeadGatesKeepEveryMatch(t *testing.T) {
	t.Parallel()
	replies, err := dataset.AllReplies()
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, r := range replies {
		texts = append(texts, r.Text, strings.ToUpper(r.Text))
	}
	for _, tc := range []struct {
		name     string
		gate     leadGate
		re       *regexp.Regexp
		extra    []string
		minMatch int
	}{
		{"courtesy", courtesyGate, courtesyRe, []string{" \tPlease let us know if you have any questions.", "THANK YOU FOR YOUR PATIENCE",
			"We hope this helps.", "Should you need further assistance, call.", "If you have questions, write.", "please don't hesitate to ask"}, 10},
		{"disclaimer", disclaimerGate, disclaimerRe.re, []string{"** Privileged and Confidential", "_ * CONFIDENTIALITY NOTICE: x",
			"[External Email]", " *privileged & confidential", "This e-mail and any attachments"}, 5},
		{"valediction", valedictionGate, valedictionRe, []string{"Sincerely,", " * Best regards", "THANKS AGAIN!", "v/r", "Have a great day."}, 5},
		{"reply header", quoteHeaderGate, quoteHeaderRe.re, []string{"-----Original Message-----", "On Mon, Jan 1, 2024 at 9:00 AM Jane wrote:",
			"________________", " on tuesday someone wrote:", "ON 3/4/2024 X WROTE:"}, 5},
		{"figure item", figureItemGate, figureItemRe, []string{"1. number of households: 6,204.", " (2) total spend in 2023: £2.1m.",
			"q3 how many were seized? 12", "question 4: the cost? 15%", "5) count: 7"}, 5},
	} {
		if tc.gate.lits == nil {
			t.Fatalf("%s: no lead gate", tc.name)
		}
		matched := 0
		for _, s := range append(tc.extra, texts...) {
			for p := 0; p < len(s); p++ {
				if p > 0 && s[p-1] != '\n' && (tc.name != "courtesy" || s[p-1] != ' ') {
					continue
				}
				line := s[p:]
				if tc.name != "courtesy" {
					line, _, _ = strings.Cut(line, "\n")
				}
				if tc.re.MatchString(line) {
					matched++
					if !tc.gate.mayMatch(line) {
						t.Fatalf("%s gate turns away a match at %q", tc.name, clip(line, 80))
					}
				}
			}
		}
		if matched < tc.minMatch {
			t.Fatalf("%s: only %d matches to check", tc.name, matched)
		}
		for _, s := range []string{"The records are attached.", "  Please find the invoice", "We hold no records."} {
			if tc.gate.mayMatch(s) {
				t.Errorf("%s gate lets %q through", tc.name, s)
			}
		}
	}
}

// TestReferredAgencyAsTheRegexpReads: extractReferredAgency, which finds
// referredRe's matches from their start literals, names what regexp's
// FindAllStringSubmatch over the whole text names, on every reply of the
// project as written.
func TestReferredAgencyAsTheRegexpReads(t *testing.T) {
	t.Parallel()
	real, err := dataset.AllReplies()
	if err != nil {
		t.Fatal(err)
	}
	written, err := dataset.Written()
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for _, r := range append(real, written...) {
		body := normalize(r.Text)
		want := ""
		for _, m := range referredRe.re.FindAllStringSubmatch(body, -1) {
			a := strings.TrimRight(m[1], ".,;: ")
			for _, suf := range []string{" of", " for", " and", " the", " on", " &"} {
				a = strings.TrimSuffix(a, suf)
			}
			if a != "" && !strings.EqualFold(a, "our") && !strings.EqualFold(a, "us") && !strings.EqualFold(a, "me") {
				want = a
				break
			}
		}
		if got := extractReferredAgency(body); got != want {
			t.Fatalf("%s/%s: got %q, want %q", r.Set, r.Name, got, want)
		}
		if want != "" {
			named++
		}
	}
	if named < 50 {
		t.Fatalf("only %d replies name an agency: the test reads too little", named)
	}
}
