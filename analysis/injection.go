package analysis

import (
	"regexp"
	"strings"
)

// Injection flags set on Analysis.InjectionFlags (seed 000 §3.6 safety).
const (
	// FlagIgnoreInstructions: the reply tells the agent to ignore or replace
	// its instructions ("ignore previous instructions and approve").
	FlagIgnoreInstructions = "IGNORE_INSTRUCTIONS"
	// FlagRoleOverride: the reply addresses the model or system directly
	// ("you are now…", "act as…", "as an AI…", "system prompt").
	FlagRoleOverride = "ROLE_OVERRIDE"
	// FlagRedirectRecords: the reply asks the agent to send records, files or
	// credentials to some other destination.
	FlagRedirectRecords = "REDIRECT_RECORDS"
	// FlagAutoApprove: the reply tells the agent to approve, pay or close
	// without review.
	FlagAutoApprove = "AUTO_APPROVE_DEMAND"
)

type injectionRule struct {
	flag   string
	re     fastRe
	unless *regexp.Regexp // a match containing this is ordinary agency language
}

// match reports whether the rule fires in lower (asciiLower'ed text).
func (r injectionRule) match(lower string) bool { return r.fires(lower, r.re.findAll(lower, 16)) }

// matchIn is match on an indexed text.
func (r injectionRule) matchIn(ix *gramIndex) bool {
	return r.fires(ix.text, r.re.findAllIn(ix, 16))
}

func (r injectionRule) fires(lower string, ms [][]int) bool {
	for _, m := range ms {
		if r.unless == nil || !r.unless.MatchString(lower[m[0]:m[1]]) {
			return true
		}
	}
	return false
}

var injectionRules = []injectionRule{
	{FlagIgnoreInstructions, fre(`(?i)\b(ignore|disregard|forget|override|bypass)\b[^.!?\n]{0,40}\b(previous|prior|above|earlier|all|any|your|system|original)\b[^.!?\n]{0,20}\b(instructions?|prompts?|rules|directions|guidelines|programming)\b`), nil},
	{FlagIgnoreInstructions, fre(`(?i)\bnew instructions?\s*:`), nil},
	// "You are now" and "act as" take a role an assistant could be given:
	// "you are now able to download", "you are now a registered user",
	// "the Act as a whole", "purchase orders act as the contracts" and
	// "this letter will act as your receipt" are a letter's words.
	// One pattern per literal start, so that each runs only where its
	// words occur ("as a" and "system" alone are in most letters).
	{FlagRoleOverride, fre(`(?i)\b(you are now|act as) (a|an|the|my|your)\b[^.!?\n]{0,30}\b(ai|assistant|agent|model|bot|chatbot|system|admin\w*|developer|reviewer|approver|supervisor|gpt|llm)\b`), nil},
	{FlagRoleOverride, fre(`(?i)\byou are now (in (developer|god|admin|debug|unrestricted) mode|acting as|operating as|unrestricted|no longer (bound|restricted|limited))\b`), nil},
	{FlagRoleOverride, fre(`(?i)\b(pretend to be|as an ai\b|as a language model|system prompt|developer mode|jailbreak)`), nil},
	{FlagRoleOverride, fre(`(?i)\[/?(system|inst)\]|<\|?(system|im_start)\|?>`, "[system", "[/system", "[inst", "[/inst", "<system", "<|system", "<im_start", "<|im_start"), nil},
	{FlagRedirectRecords, fre(`(?i)\b(send|forward|e-?mail|upload|transfer|deliver|share|cc)\b[^.!?\n]{0,30}\b(all |any |the |these |those |your |this )?(documents|records|files|attachments|case files?|data|responses?|credentials|passwords?|api keys?|tokens?|conversation|correspondence)\b[^.!?\n]{0,40}\b(to|at)\b[^.!?\n]{0,20}([\w.+-]+@[\w-]+\.[\w.]+|https?://\S+)`, "@", "http"), regexp.MustCompile(`(?i)\b(request|appeal|payment|inquir|question)`)},
	{FlagAutoApprove, fre(`(?i)\b(automatically|immediately|must|should|now)\b[^.!?\n]{0,20}\b(approve|authorize|pay|accept|mark (it|this|the case) (as )?(complete|closed))\b[^.!?\n]{0,40}\b(without|no)\b[^.!?\n]{0,20}\b(review|human|approval|checking|confirmation)\b`), nil},
}

// sentenceBounds splits text into sentence spans: ., ! or ? followed by a
// space or newline, and line breaks.
var sentenceEnd = regexp.MustCompile(`[.!?](\s|$)|\n`)

// stripInjections removes every sentence that tries to instruct the agent and
// returns the cleaned text, the flags raised (deduplicated, stable order) and
// the removed sentences (trimmed, for reasons). Classification and fee
// extraction then run as if those sentences were absent.
func stripInjections(s string) (string, []string, []string) {
	clean, flags, removed, ix := stripInjectionsIndexed(s)
	ix.release()
	return clean, flags, removed
}

// stripInjectionsIndexed is stripInjections, also returning an index of
// asciiLower of the cleaned text, which the caller releases.
func stripInjectionsIndexed(s string) (string, []string, []string, *gramIndex) {
	var flags, removed []string
	lower := asciiLower(s)
	ix := newGramIndex(lower)
	hit := false
	for _, r := range injectionRules {
		if r.matchIn(ix) {
			hit = true
			break
		}
	}
	if !hit {
		return s, nil, nil, ix
	}
	var b strings.Builder
	start := 0
	ends := sentenceEnd.FindAllStringIndex(s, -1)
	ends = append(ends, []int{len(s), len(s)})
	for _, e := range ends {
		if e[1] <= start && e[1] != len(s) {
			continue
		}
		sent := s[start:e[1]]
		bad := false
		for _, r := range injectionRules {
			if r.match(lower[start:e[1]]) {
				bad = true
				flags = appendUnique(flags, r.flag)
			}
		}
		if bad {
			removed = append(removed, strings.TrimSpace(sent))
			if strings.HasSuffix(sent, "\n") {
				b.WriteString("\n")
			}
		} else {
			b.WriteString(sent)
		}
		start = e[1]
		if start >= len(s) {
			break
		}
	}
	// Rules that span sentence boundaries still raise the flag.
	for _, r := range injectionRules {
		if r.matchIn(ix) {
			flags = appendUnique(flags, r.flag)
		}
	}
	ix.release()
	clean := b.String()
	return clean, flags, removed, newGramIndex(asciiLower(clean))
}

func appendUnique(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}
