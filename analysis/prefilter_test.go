package analysis

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/foiaflow/foiaflow/dataset"
)

// boundTexts are the corpus bodies plus shuffled-word variants of them, so
// keys land in many different neighbourhoods.
func boundTexts(t *testing.T) []string {
	replies, err := dataset.Corpus()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	var out []string
	for _, r := range replies {
		n := normalize(r.Text)
		out = append(out, n)
		w := strings.Fields(n)
		for range 3 {
			rng.Shuffle(len(w), func(i, j int) { w[i], w[j] = w[j], w[i] })
			out = append(out, strings.Join(w, " "))
		}
	}
	out = append(out, "Fee: USD 45 and 12 dollars; see WWW.GovQA.us/x on 3 Jan 2024 (FOIA-2024-001), 2024-02-30 1/2/24 juſt foia")
	return out
}

// TestFullReMatchesWholeScan: fullRe finds exactly what the plain regexp
// finds on the whole text.
func TestFullReMatchesWholeScan(t *testing.T) {
	t.Parallel()
	res := []fullRe{moneyRe, trackingFormRe, dateDMY, dateSlash, dateISO, portalCueRe, fileShareRe, payAskRe, pagesReviewedRe, pagesActiveRe, pagesOfRe}
	for _, v := range vendorByName {
		res = append(res, v.re)
	}
	res = append(res, ratePre, thresholdPre, creditPre, spentPre, percentOfPre, depositNear, depositShareRe)
	for _, tc := range totalCues {
		res = append(res, tc.re)
	}
	for _, s := range boundTexts(t) {
		lower := asciiLower(s)
		ix := newGramIndex(lower)
		for _, f := range res {
			for _, in := range []string{s, lower} {
				want := f.re.FindAllStringSubmatchIndex(in, -1)
				if got := f.allSubmatchIndex(in, lower); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s on %.60q: got %v want %v", f.re, in, got, want)
				}
				if got := f.allSubmatchIndexIn(in, ix); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s allSubmatchIndexIn on %.60q: got %v want %v", f.re, in, got, want)
				}
				if got, want := f.submatchIndexIn(in, ix), f.re.FindStringSubmatchIndex(in); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s submatchIndexIn on %.60q: got %v want %v", f.re, in, got, want)
				}
				if got, want := f.matchString(in, lower), f.re.MatchString(in); got != want {
					t.Fatalf("%s matchString on %.60q: got %v want %v", f.re, in, got, want)
				}
			}
		}
	}
}

// TestShrunkWindowsUnchanged: cutting windows to a pattern's match bounds
// finds the same matches as the full ±window scan.
func TestShrunkWindowsUnchanged(t *testing.T) {
	t.Parallel()
	var fs []fastRe
	for _, r := range rules {
		fs = append(fs, r.fr)
	}
	for _, c := range constraintRules {
		fs = append(fs, c.re)
	}
	for _, r := range injectionRules {
		fs = append(fs, r.re)
	}
	fs = append(fs, urlRe, trackingLabeledRe, dateMDY, hostileRe, negativeRe, positiveRe, downloadPhraseRe)
	for _, s := range boundTexts(t) {
		lower := asciiLower(s)
		ix := newGramIndex(lower)
		for _, f := range fs {
			old := f
			old.shrink, old.win, old.atLimit, old.seps = false, window, maxMatch, -1
			want := old.findAllOpt(lower, ix, 64)
			if got := f.findAllOpt(lower, ix, 64); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s on %.60q: got %v want %v", f.re, lower, got, want)
			}
			if got, want := f.findAll(lower, 64), old.findAll(lower, 64); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s findAll on %.60q: got %v want %v", f.re, lower, got, want)
			}
		}
	}
}

// startPatterns are the fastRe patterns the tests of anchored runs check:
// the cue table's, the constraints', the injection filter's and the
// extractors' that may run from their start literals.
func startPatterns() []fastRe {
	var fs []fastRe
	for _, r := range rules {
		fs = append(fs, r.fr)
	}
	for _, c := range constraintRules {
		fs = append(fs, c.re)
	}
	for _, r := range injectionRules {
		fs = append(fs, r.re)
	}
	return append(fs, urlRe, trackingLabeledRe, dateMDY, hostileRe, negativeRe, positiveRe, downloadPhraseRe, lateRe, reviewRightsRe, waiverRe)
}

// TestAtStartByBranch: a pattern's anchored match found branch by branch
// is the whole pattern's, at every start its prefix literals offer.
func TestAtStartByBranch(t *testing.T) {
	fs := startPatterns()
	n := 0
	for _, s := range append(boundTexts(t), "records were purged per the ſchedule; Kase files destroyed") {
		lower := asciiLower(s)
		trusted := !strings.Contains(lower, "\u017f") && !strings.Contains(lower, "\u212a")
		for _, f := range fs {
			if !f.byBranch {
				continue
			}
			for _, k := range f.prefix {
				for off := 0; ; {
					i := strings.Index(lower[off:], k)
					if i < 0 {
						break
					}
					p := off + i
					in := lower[p:min(len(lower), p+f.atLimit)]
					if got, want := f.atStartMatch(in, 0, trusted, nil), f.atStart.FindStringIndex(in); !reflect.DeepEqual(got, want) {
						t.Fatalf("%s at %.60q: got %v want %v", f.re, in, got, want)
					}
					n++
					off = p + 1
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no pattern matched by branch")
	}
}

// TestLiveBranchesKeepEveryMatch: a branch liveBranches rules out (of a
// pattern run from its start literals) has no match in the text, on all the
// real replies and on the agency replies shuffled (boundTexts); on the
// latter, findAllIn, which skips the branches ruled out, finds what
// regexp's FindAllStringIndex finds.
func TestLiveBranchesKeepEveryMatch(t *testing.T) {
	t.Parallel()
	fs := startPatterns()
	texts := boundTexts(t)
	bound := len(texts)
	replies, err := dataset.AllReplies()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range replies {
		texts = append(texts, normalize(r.Text))
	}
	out, n := 0, 0
	for k, s := range texts {
		lower := asciiLower(s)
		if strings.Contains(lower, "\u017f") || strings.Contains(lower, "\u212a") {
			continue
		}
		ix := newGramIndex(lower)
		for _, f := range fs {
			if f.atStart == nil || !f.asciiGates {
				continue
			}
			n++
			live := f.liveBranches(lower, ix)
			for i, a := range f.alts {
				if (live == nil || !live[i]) && a.re.MatchString(lower) {
					t.Fatalf("%s: branch %s ruled out but matches %.80q", f.re, a.re, lower)
				}
				if live == nil || !live[i] {
					out++
				}
			}
			if k >= bound {
				continue
			}
			if got, want := f.findAllIn(ix, -1), f.re.FindAllStringIndex(lower, -1); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s on %.80q: got %v want %v", f.re, lower, got, want)
			}
		}
		ix.release()
	}
	if out == 0 {
		t.Fatalf("no branch ruled out in %d pattern readings", n)
	}
}

// TestReversedMatchesAtEnd: a pattern that ends at the text's end, run
// reversed on the reversed text (fullRe.rev), matches where the pattern
// does: on the text before every digit and currency sign of the corpus,
// as the fee patterns read it, and on texts with broken runes.
func TestReversedMatchesAtEnd(t *testing.T) {
	t.Parallel()
	res := []fullRe{ratePre, thresholdPre, creditPre, spentPre, percentOfPre, depositNear, depositShareRe}
	for _, tc := range totalCues {
		res = append(res, tc.re)
	}
	res = append(res, newFullRe(`(?i)((?m:^)|\bx)\s*€$|\Aa\b.*$`))
	texts := []string{"5 hours at\xe2\x82", "\xac\x82\xe2 x €", "x €", "a b", "deposit\n"}
	for _, s := range boundTexts(t)[:200] {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c >= '0' && c <= '9' && (i == 0 || s[i-1] == ' ') || c == '$' || strings.HasPrefix(s[i:], "£") {
				pre := s[max(0, i-100):i]
				texts = append(texts, pre, strings.TrimRight(pre, " "))
			}
		}
	}
	for _, f := range res {
		if f.rev == nil {
			t.Fatalf("%s: not run reversed", f.re)
		}
		for _, in := range texts {
			if got, want := f.matchString(in, asciiLower(in)), f.re.MatchString(in); got != want {
				t.Fatalf("%s on %q: got %v want %v", f.re, in, got, want)
			}
		}
	}
}
