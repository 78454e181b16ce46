package analysis

import (
	"bytes"
	"cmp"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/foiaflow/foiaflow/workflow"
)

// Feature is one named input of the reply model, with the text it came from.
// Names are namespaced by where they come from:
//
//	w:<word>          a word of the agency's own text (numbers read "#")
//	b:<word>_<word>   two adjacent words of the agency's own text
//	a:<word>          a word of an attachment's file name
//	cue:<rule>        a FOIA phrase family matched in the agency's text (cues.go)
//	lead:<rule>       the same, in the reply's opening sentences
//	x:<fact>          an exact extractor's finding (fee amount, exemption
//	                  citation, portal, download link, …)
//	z:<zone>          the reply has such a zone (quoted message, signature,
//	                  confidentiality footer, portal-system footer, the
//	                  text of an attached letter)
//
// Quoted earlier messages, restated request letters, signatures,
// confidentiality footers and portal-system footers contribute only their
// z: indicator, so text in them cannot outvote the agency's own sentence.
type Feature struct {
	Name  string
	Value float64
	// Span is the text the feature came from (a slice of the agency's
	// text, or a fact such as "$237.50"); empty for zone indicators.
	Span string
	// Start is where Span starts in the agency's text, -1 when it is not a
	// slice of it.
	Start int
}

// leadBytes is how much of the agency's text counts as its opening: the
// sentence that says what the reply is usually comes first.
const leadBytes = 400

// reading is one reply prepared for the model: its zones, what the exact
// extractors found, the cue evidence and the features.
type reading struct {
	z            zones
	body         string // the agency's own words, subject first when it says something
	lower        string // unwrapLines(asciiLower(body))
	lix, bix     *gramIndex
	tix          *gramIndex // indexes z.fullLower
	fee          feeResult
	exemptions   []string
	portalURL    string
	portalVendor string
	hasLink      bool
	linkWhy      string
	ev           []evidence
	attachments  []string        // file names: the message's, then "[Attachments: …]" lines
	nameEv       []evidence      // what the attachments' names say (nameEvidence)
	titled       bool            // an attachment's name is a letter's title (nameEvidence)
	letters      map[string]bool // attachment names that are letters' titles (letterTitle)
	// answered are the request's questions the reply answers in place
	// (answeredQuestionList on the lines as written).
	answered []answeredQuestion
	english  bool
	german   bool    // not English, and reads as German
	tokens   []token // the words of body
	feats    []Feature
	notes    []string
}

// attachmentsLineRe is the "[Attachments: a.pdf, b.pdf]" line some archives
// put where a message's attachments were.
var attachmentsLineRe = regexp.MustCompile(`(?im)^\s*\[attachments?:\s*([^\]\n]*)\]\s*$`)

// read normalizes reply, splits its zones, runs the exact extractors and
// the cue table, and builds the model's features. tix indexes
// asciiLower(text); the reading releases it.
func read(reply workflow.Reply, text string, tix *gramIndex, subjectBytes int) reading {
	rd := reading{tix: tix}
	z := split(text, tix)
	rd.z = z
	body := z.body
	var lines [][]string
	if containsFold(body, "[attach") {
		lines = attachmentsLineRe.FindAllStringSubmatch(body, -1)
	}
	for _, m := range lines {
		for _, n := range strings.Split(m[1], ",") {
			if n = strings.TrimSpace(n); n != "" {
				rd.attachments = append(rd.attachments, n)
			}
		}
	}
	if len(rd.attachments) > 0 {
		body = attachmentsLineRe.ReplaceAllString(body, "")
	}
	for _, a := range reply.Attachments {
		rd.attachments = append(rd.attachments, a.Filename)
	}
	if s := strings.TrimSpace(reply.Subject); s != "" && !strings.HasPrefix(strings.ToLower(s), "re:") {
		if len(s) > subjectBytes {
			cut := subjectBytes
			for cut > 0 && !isRuneStart(s[cut]) {
				cut--
			}
			s = s[:cut]
		}
		body = s + "\n" + body
	}
	rd.body = body
	lower := asciiLower(body)
	rd.lower = unwrapLines(lower)
	rd.lix = indexOf(rd.lower, tix)
	rd.bix = indexOf(lower, tix, rd.lix)
	rd.fee = extractFeeLower(body, lower, rd.bix)
	sentences := sentenceSpans(rd.lower)
	rd.exemptions = extractExemptions(body, rd.lix, sentences)
	rd.portalURL, rd.portalVendor = extractPortal(body + "\n" + z.footer)
	// A file named as a letter ("No Records Response.pdf") is the
	// agency's letter, not records: it is no records link, and its name's
	// words are read as its title only.
	for _, a := range rd.attachments {
		if letterTitle(a) {
			if rd.letters == nil {
				rd.letters = map[string]bool{}
			}
			rd.letters[a] = true
		}
	}
	var atts []workflow.Attachment
	for _, a := range reply.Attachments {
		if !rd.letters[a.Filename] {
			atts = append(atts, a)
		}
	}
	rd.hasLink, rd.linkWhy = hasRecordsLinkLower(z.full, z.fullLower, tix, atts)
	rd.answered = answeredQuestionList(lower)
	rd.ev = scoreRules(rd.lix, sentences, body, questionSpans(rd.answered))
	rd.nameEv, rd.titled = nameEvidence(rd.attachments)
	rd.tokens = tokenize(body)
	rd.english, rd.german = language(body, rd.tokens)
	rd.feats = rd.features()
	return rd
}

// indexOf returns the first of have that indexes text (the same text: a
// reply without zones, wrapped lines or a subject reads one text three
// ways), or a new index of it.
func indexOf(text string, have ...*gramIndex) *gramIndex {
	for _, ix := range have {
		if ix != nil && ix.text == text {
			return ix
		}
	}
	return newGramIndex(text)
}

// release hands the reading's indexes back for reuse, each once (two of
// them may be one); rd.lix, rd.bix and rd.tix must not be used after.
func (rd *reading) release() {
	rd.tix.release()
	if rd.lix != rd.tix {
		rd.lix.release()
	}
	if rd.bix != rd.tix && rd.bix != rd.lix {
		rd.bix.release()
	}
	rd.lix, rd.bix, rd.tix = nil, nil, nil
}

// features lists the model inputs of a reading, deduplicated by name (the
// first occurrence keeps its span), in the order they were found.
func (rd *reading) features() []Feature {
	fs := newFeatureSet(len(rd.tokens) + len(rd.tokens)/2 + 32)
	// Words and word pairs of the agency's own text. Pairs do not cross a
	// sentence end or a paragraph break.
	for i, t := range rd.tokens {
		fs.addJoin(1, rd.body[t.start:t.end], t.start, "w:", t.word)
		if i > 0 && !t.breakBefore {
			p := rd.tokens[i-1]
			fs.addJoin(1, rd.body[p.start:t.end], p.start, "b:", p.word, "_", t.word)
		}
	}
	sentenceConcepts(rd.tokens, func(a, b string, start, end int) {
		if b == "" {
			fs.addJoin(1, rd.body[start:end], start, "s:", a)
		} else {
			fs.addJoin(1, rd.body[start:end], start, "s:", a, "+", b)
		}
	})
	for _, a := range rd.attachments {
		if rd.letters[a] {
			continue
		}
		forEachToken(a, func(tok string, start, end int, _ bool) {
			fs.addJoin(1, a, -1, "a:", tok)
		})
	}
	for _, e := range rd.nameEv {
		fs.addJoin(1, "attachment "+e.snippet, -1, "cue:", e.name)
	}
	for _, e := range rd.ev {
		v := 1.0
		if e.boilerplate {
			v = appealDiscount
		}
		fs.addJoin(v, e.snippet, e.start, "cue:", e.name)
		if e.start >= 0 && e.start < leadBytes {
			fs.addJoin(v, e.snippet, e.start, "lead:", e.name)
		}
	}
	for _, x := range rd.facts() {
		fs.addJoin(1, x.span, -1, "x:", x.name)
	}
	for _, zn := range []struct {
		name    string
		present bool
	}{{"quoted", rd.z.quoted}, {"signature", rd.z.signature}, {"disclaimer", rd.z.disclaimer}, {"portal_footer", rd.z.footer != ""}, {"attached_letter", rd.z.attachedLetter}} {
		if zn.present {
			fs.addJoin(1, "", -1, "z:", zn.name)
		}
	}
	return fs.done()
}

// hasEvidence reports whether a cue matched or an extractor found a fact
// that speaks for a class: without either, the model would be reading
// words alone.
//
// A weak cue (prior below 1: "thank you for your request", a bare
// question mark) opens replies of every class and is not evidence on its
// own; nor are the facts in notEvidence.
func (rd *reading) hasEvidence() bool {
	for _, e := range rd.ev {
		if e.weight >= 1 || e.boilerplate {
			return true
		}
	}
	if rd.titled {
		// A title says what the letter is; other cues in a file name
		// ("Invoice 2023-114 Acme Towing.pdf") may name a record.
		return true
	}
	for _, f := range rd.feats {
		if f.Name == "x:records_link" && strings.HasPrefix(rd.linkWhy, "attachment ") {
			continue // a file attached says no more than x:attachment
		}
		if strings.HasPrefix(f.Name, "x:") && !notEvidence[f.Name] {
			return true
		}
	}
	return false
}

// nameEvidence is what the attachments' names say: an agency names a
// letter by what it is ("Refusal notice.pdf", "Response not held.pdf",
// "2024-118 Denial Letter.pdf"), so the cue table and the letter titles
// (titleRules) read the names too. titled: a name is a letter's title
// (its title cue may give way to the same class's stronger cue).
func nameEvidence(attachments []string) (ev []evidence, titled bool) {
	if len(attachments) == 0 {
		return nil, false
	}
	names := nameSeps.Replace(asciiLower(strings.Join(attachments, ". ")))
	nix := newGramIndex(names)
	defer nix.release()
	spans := sentenceSpans(names)
	titles := scoreRulesOf(titleRules, &titleKeys, nix, spans, names, nil)
	return dropOverlaps(append(scoreRulesOf(rules, &ruleKeys, nix, spans, names, nil), titles...)), len(titles) > 0
}

// nameSeps are the separators of words in file names, read as spaces.
var nameSeps = strings.NewReplacer("_", " ", "-", " ")

// letterTitle reports whether an attachment's name is a letter's title
// (titleRules: "2024-118 Denial Letter.pdf", "Acknowledgement_24-118.pdf").
func letterTitle(name string) bool {
	_, titled := nameEvidence([]string{name})
	return titled
}

// stillWorkingRe: part of the request is still being worked on ("we are
// still searching for records responsive to item 2"); with records
// delivered, a partial delivery.
var stillWorkingRe = regexp.MustCompile(`\b(still|continue to|continuing to) (be )?(search|searching|locating|gathering|collecting|compiling|reviewing|processing|working on)\b[^.!?\n]{0,60}\b(records|documents|items?|parts?|remainder|rest|remaining|additional|other)\b`)

// mayStillWork: the literals stillWorkingRe needs.
func mayStillWork(lower string) bool {
	return strings.Contains(lower, "still ") || strings.Contains(lower, "continu")
}

// pagesReviewedRe, pagesActiveRe and pagesOfRe count the pages a release
// letter reviewed and released ("120 pages were reviewed and 96 pages are
// being released", "we located 64 pages. We are releasing 50 pages", "96
// of 120 pages are released": the FBI's and DOJ's page accounting).
var (
	pagesReviewedRe = newFullRe(`\b(\d[\d,]*) (total )?pages? (were|was|have been|has been) (reviewed|processed)\b[^.]{0,60}?\b(\d[\d,]*) pages? (are being|is being|were|was|have been|has been|are|is) (released|produced|provided|disclosed)\b`)
	pagesActiveRe   = newFullRe(`\b(located|identified|found|reviewed|processed) (\d[\d,]*) (total |responsive )?pages?\b.{0,80}?\b(are releasing|is releasing|are producing|are providing|released|produced|provided) (\d[\d,]*) pages?\b( (to you|in full|with))?([^a-z]|$)`)
	pagesOfRe       = newFullRe(`\b(\d[\d,]*) (of|out of) (the )?(\d[\d,]*) pages?\b[^.]{0,40}?\b(released|produced|provided|disclosed)\b`)
)

// pagesWithheld returns the page accounting of a release letter when fewer
// pages were released than reviewed ("96 of 120 pages released"): the rest
// were withheld. A final installment's count ("the remaining 75 of 300
// pages", "200 pages were released in our March letter") is not. lix
// indexes the lower-cased text read.
func pagesWithheld(lix *gramIndex) (string, bool) {
	lower := lix.text
	if !strings.Contains(lower, "pages") {
		return "", false
	}
	num := func(s string) int {
		n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
		if err != nil {
			return -1
		}
		return n
	}
	installment := func(at []int) bool {
		return firstOf(lower[max(0, at[0]-80):min(len(lower), at[1]+80)], installmentWords) != ""
	}
	if m := pagesReviewedRe.submatchIndexIn(lower, lix); m != nil && !installment(m) {
		if r, rel := num(lower[m[2]:m[3]]), num(lower[m[10]:m[11]]); rel >= 0 && rel < r {
			return lower[m[0]:m[1]], true
		}
	}
	if m := pagesActiveRe.submatchIndexIn(lower, lix); m != nil && !installment(m) {
		if r, rel := num(lower[m[4]:m[5]]), num(lower[m[10]:m[11]]); rel >= 0 && rel < r {
			return lower[m[0]:m[1]], true
		}
	}
	if m := pagesOfRe.submatchIndexIn(lower, lix); m != nil && !installment(m) {
		if rel, r := num(lower[m[2]:m[3]]), num(lower[m[8]:m[9]]); rel >= 0 && rel < r {
			return lower[m[0]:m[1]], true
		}
	}
	return "", false
}

// installmentWords near a page count make it one installment's.
var installmentWords = []string{"remaining", "last ", "final", "previous", "earlier", "in our "}

// notEvidence are the facts that speak only against a class (x:late,
// x:review_rights) or say nothing of one (x:short, x:attachment, and
// x:money: an amount that is not a quote).
var notEvidence = map[string]bool{"x:short": true, "x:attachment": true, "x:review_rights": true, "x:late": true, "x:money": true}

// featureSet collects features deduplicated by name: out in the order
// names were first added, slots an open-addressing table of indexes into
// out (+1; 0 is empty) by FNV-1a hash of the name. The names are kept one
// after another in names (feature i's at names[ends[i-1]:ends[i]]) and
// become out's Names, slices of one string, in done: a reply's few hundred
// names cost one allocation. The tables are recycled (featureSets): only
// out and the names' string are the reply's own.
type featureSet struct {
	out   []Feature
	slots []int32
	names []byte
	ends  []int32
	hash  []uint32 // the FNV-1a hash of each name
}

// featureSets recycles the tables of done feature sets.
var featureSets = sync.Pool{New: func() any { return new(featureSet) }}

func newFeatureSet(expect int) *featureSet {
	n := 64
	for n < 2*expect {
		n *= 2
	}
	fs := featureSets.Get().(*featureSet)
	fs.out = make([]Feature, 0, expect)
	if cap(fs.slots) < n {
		fs.slots = make([]int32, n)
	} else {
		fs.slots = fs.slots[:n]
		clear(fs.slots)
	}
	fs.names, fs.ends, fs.hash = fs.names[:0], fs.ends[:0], fs.hash[:0]
	return fs
}

// addJoin adds the feature named by parts joined, of value v, from span
// (at start in the agency's text, -1 when it is not a slice of it).
func (fs *featureSet) addJoin(v float64, span string, start int, parts ...string) {
	for _, p := range parts {
		fs.names = append(fs.names, p...)
	}
	fs.addName(v, span, start)
}

// nameOf returns the name of feature i.
func (fs *featureSet) nameOf(i int) []byte {
	from := int32(0)
	if i > 0 {
		from = fs.ends[i-1]
	}
	return fs.names[from:fs.ends[i]]
}

// addName adds the feature whose name was just appended to fs.names (after
// the last feature's): a name seen before keeps its first span and the
// larger value.
func (fs *featureSet) addName(v float64, span string, start int) {
	from := int32(0)
	if n := len(fs.ends); n > 0 {
		from = fs.ends[n-1]
	}
	name := fs.names[from:]
	full := fnv1a(name)
	mask := uint32(len(fs.slots) - 1)
	h := full & mask
	for ; fs.slots[h] != 0; h = (h + 1) & mask {
		if i := int(fs.slots[h] - 1); fs.hash[i] == full && bytes.Equal(fs.nameOf(i), name) {
			fs.out[i].Value = max(fs.out[i].Value, v)
			fs.names = fs.names[:from]
			return
		}
	}
	fs.out = append(fs.out, Feature{Value: v, Span: span, Start: start})
	fs.ends = append(fs.ends, int32(len(fs.names)))
	fs.hash = append(fs.hash, full)
	fs.slots[h] = int32(len(fs.out))
	if 2*len(fs.out) > len(fs.slots) {
		fs.grow()
	}
}

// grow doubles the table.
func (fs *featureSet) grow() {
	fs.slots = make([]int32, 2*len(fs.slots))
	mask := uint32(len(fs.slots) - 1)
	for i := range fs.out {
		h := fs.hash[i] & mask
		for fs.slots[h] != 0 {
			h = (h + 1) & mask
		}
		fs.slots[h] = int32(i + 1)
	}
}

// done returns the features with their names and hands fs's tables back
// for reuse; fs is not to be used after.
func (fs *featureSet) done() []Feature {
	all := string(fs.names)
	from := int32(0)
	for i := range fs.out {
		fs.out[i].Name = all[from:fs.ends[i]]
		from = fs.ends[i]
	}
	out := fs.out
	fs.out = nil
	featureSets.Put(fs)
	return out
}

func fnv1a[T string | []byte](b T) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(b); i++ {
		h ^= uint32(b[i])
		h *= 16777619
	}
	return h
}

type fact struct{ name, span string }

// facts are the exact extractors' findings as model inputs.
func (rd *reading) facts() []fact {
	var out []fact
	switch {
	case rd.fee.cents != nil && *rd.fee.cents == 0:
		// "Estimated fees: $0.00": nothing to pay, so no evidence of a
		// fee quote.
	case rd.fee.cents != nil && rd.fee.cued:
		out = append(out, fact{"fee_amount", workflow.Money(*rd.fee.cents, rd.fee.currency)})
	case rd.fee.cents != nil:
		out = append(out, fact{"amount_uncued", workflow.Money(*rd.fee.cents, rd.fee.currency)})
	case rd.fee.rateOnly:
		out = append(out, fact{"rate_only", "a rate for the work"})
	}
	if rd.fee.cents != nil && *rd.fee.cents > 0 && rd.fee.cued && hasAny(rd.ev, "clarify.confirm", "clarify.could_you", "clarify.decision", "clarify.please_reply") {
		// "Please confirm before we proceed" under a quoted fee asks for
		// consent to the fee.
		out = append(out, fact{"fee_asks_consent", "a quoted fee, and the requester asked to confirm or decide"})
	}
	if rd.fee.reported {
		out = append(out, fact{"reported_figure", "an amount reported as information, not asked for"})
	}
	if len(rd.fee.all) > 0 {
		out = append(out, fact{"money", workflow.Money(rd.fee.all[0].cents, rd.fee.all[0].currency)})
	}
	// A US exemption ("(b)(6)", "Gov. Code 7923.600") and a section of an
	// FOI Act ("section 43(2)", UK FOIA 2000 Part II) are two citation
	// systems: each its own fact, each weighted by its own replies.
	var us, section string
	for _, e := range rd.exemptions {
		if sectionCite(e) {
			section = cmp.Or(section, e)
		} else {
			us = cmp.Or(us, e)
		}
	}
	if us != "" {
		out = append(out, fact{"exemption_cited", us})
	}
	if section != "" {
		out = append(out, fact{"section_cited", section})
	}
	if rd.portalVendor != "" {
		out = append(out, fact{"portal_vendor", rd.portalVendor})
	}
	if rd.portalURL != "" {
		out = append(out, fact{"portal_url", rd.portalURL})
	}
	if rd.hasLink {
		out = append(out, fact{"records_link", rd.linkWhy})
	}
	if len(rd.attachments) > 0 {
		out = append(out, fact{"attachment", rd.attachments[0]})
	}
	if hasAny(rd.ev, "denial.cost_limit") && hasAny(rd.ev, "clarify.still_wanted", "clarify.narrow", "clarify.could_you", "clarify.options") {
		// A refusal on cost that invites a narrower request (UK FOIA s.12
		// with s.16 advice and assistance) asks the requester to act.
		out = append(out, fact{"cost_limit_narrow", "over the cost limit, with an invitation to narrow the request"})
	}
	if hasEvidence(rd.ev, "norecords.") && hasEvidence(rd.ev, "wrong.") {
		out = append(out, fact{"not_held_but_elsewhere", "not held here, held by another body"})
	}
	delivered := hasAny(rd.ev, "ready.attached_records", "ready.download", "ready.link", "ready.disclosing", "ready.attached_anything", "ready.information_provided", "ready.available", "ready.pages_released")
	held := hasAny(rd.ev, "partial.redacted", "partial.withheld", "partial.exemptions_asserted", "partial.obscured", "denial.exempt", "partial.not_yet_available", "partial.more_to_follow",
		"partial.installment", "partial.some_withheld", "partial.personal_data_removed", "partial.remainder", "denial.exempt_section", "denial.withheld_in_full", "partial.in_part")
	if m, ok := pagesWithheld(rd.lix); ok {
		out = append(out, fact{"pages_withheld", m})
		held = true
	}
	if delivered && (held || mayStillWork(rd.lower) && stillWorkingRe.MatchString(rd.lower)) {
		out = append(out, fact{"delivered_and_withheld", "records delivered while some are withheld, redacted or still to come"})
	}
	answered := false
	if n := informativeAnswers(rd.answered); n >= 2 {
		out = append(out, fact{"answers_inline", strconv.Itoa(n) + " of the request's questions answered in place"})
		answered = true
	} else if itemisedResponse(rd.bix) {
		out = append(out, fact{"answers_items", "the request answered item by item after a response lead"})
		answered = true
	}
	if answered && (held || hasAny(rd.ev, "norecords.not_held", "norecords.does_not_have", "norecords.do_not_have_it")) {
		// Questions answered in place and one of them not held or
		// withheld: a partial release (the UK form).
		out = append(out, fact{"answered_but_not_all", "questions answered in place, one not held or withheld"})
	}
	if m := lateRe.findIn(rd.lix); m != "" {
		out = append(out, fact{"late", m})
	}
	if m := reviewRightsRe.findIn(rd.lix); m != "" {
		out = append(out, fact{"review_rights", m})
	}
	if len(rd.body) < 200 {
		out = append(out, fact{"short", "a reply of a few words"})
	}
	return out
}

// token is one word of a text, with its byte span.
type token struct {
	word        string
	start, end  int
	breakBefore bool // a sentence end or paragraph break precedes it
}

// tokenize returns the words of s (forEachToken).
func tokenize(s string) []token {
	out := make([]token, 0, len(s)/6)
	forEachToken(s, func(tok string, start, end int, brk bool) {
		out = append(out, token{tok, start, end, brk})
	})
	return out
}

// forEachToken calls fn for each word of s: runs of letters and digits,
// lower-cased, apostrophes dropped ("don't" → "dont"), digits read "#"
// ("2023" → "#"), "$" and "§" as words of their own. breakBefore is true
// when a sentence end or a paragraph break separates it from the previous
// word.
func forEachToken(s string, fn func(tok string, start, end int, breakBefore bool)) {
	var buf []byte
	brk := true
	for i := 0; i < len(s); {
		c := s[i]
		if c == '$' {
			fn("$", i, i+1, brk)
			brk = false
			i++
			continue
		}
		r, n := rune(c), 1
		if c >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		if r == '§' {
			fn("§", i, i+n, brk)
			brk = false
			i += n
			continue
		}
		if !isWordRune(r) {
			switch {
			case c == '.' || c == '!' || c == '?' || c == ';' || c == ':':
				brk = true
			case c == '\n' && i+1 < len(s) && s[i+1] == '\n':
				brk = true
			}
			i += n
			continue
		}
		start := i
		buf = buf[:0]
		digits, same := false, true // same: buf is s[start:i]
		for i < len(s) {
			r, n := rune(s[i]), 1
			if s[i] >= utf8.RuneSelf {
				r, n = utf8.DecodeRuneInString(s[i:])
			}
			if r == '\'' && i+n < len(s) && isLetterByte(s[i+n]) && len(buf) > 0 {
				i += n
				same = false
				continue
			}
			if !isWordRune(r) {
				break
			}
			switch {
			case r >= '0' && r <= '9':
				digits = true
			case r < utf8.RuneSelf:
				c := byte(unicode.ToLower(r))
				same = same && c == s[i]
				buf = append(buf, c)
			default:
				l := unicode.ToLower(r)
				same = same && l == r && utf8.RuneLen(l) == n
				buf = utf8.AppendRune(buf, l)
			}
			i += n
		}
		var tok string
		switch {
		case digits:
			tok = "#"
		case same:
			tok = s[start:i]
		default:
			tok = string(buf)
		}
		fn(tok, start, i, brk)
		brk = false
	}
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isLetterByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// englishWords are English function words; in English prose they are a
// third or more of all words, in German, Portuguese or Albanian a few in a
// hundred.
var englishWords = map[string]bool{
	"the": true, "and": true, "of": true, "to": true, "a": true, "in": true, "is": true,
	"that": true, "for": true, "you": true, "your": true, "we": true, "this": true,
	"be": true, "with": true, "are": true, "not": true, "on": true, "as": true,
	"have": true, "will": true, "or": true, "by": true, "our": true, "it": true,
	"please": true, "has": true, "been": true, "from": true, "any": true, "if": true,
	"at": true, "i": true, "was": true, "which": true, "an": true,
}

// minEnglishShare is the share of English function words under which a
// reply is not read as English (and the model's class is not trusted).
const minEnglishShare = 0.12

// germanWords are German function words, as englishWords are English ones.
var germanWords = map[string]bool{
	"der": true, "die": true, "das": true, "und": true, "nicht": true, "ist": true,
	"ihre": true, "ihr": true, "ihnen": true, "ihrer": true, "ihren": true, "wir": true,
	"sie": true, "mit": true, "für": true, "den": true, "dem": true, "des": true,
	"zu": true, "von": true, "auf": true, "ein": true, "eine": true, "einer": true,
	"wird": true, "werden": true, "sind": true, "ich": true, "im": true, "bei": true,
	"uns": true, "auch": true, "oder": true, "als": true, "nach": true, "zur": true,
}

// foreignWords are function words and letter formulas of the other
// languages replies come in (German and Dutch, the Romance languages,
// Albanian, the Slavic languages, the Scandinavian languages, Romanian,
// Hungarian, Turkish, Indonesian): one of them in a terse reply is enough
// to doubt it is English (foreignWord). Words English notes hold too are
// left out: English words ("in", "a", "do", "no", "die", "care", "met"),
// abbreviations and codes ("de", "la", "il", "az", "se", "vi", "det", "et",
// "ein", "din", "dos", "mit", "att", "para", "o", "y") and names' parts
// ("Los", "Las", "Des", "Van").
var foreignWords = map[string]bool{
	// German, Dutch
	"und": true, "nicht": true, "ist": true, "wir": true, "sie": true, "für": true,
	"eine": true, "einer": true, "zu": true, "von": true, "auf": true, "ich": true,
	"wird": true, "werden": true, "sind": true, "ihre": true, "ihnen": true, "ihr": true,
	"auch": true, "oder": true, "nach": true, "zur": true, "der": true, "sehr": true,
	"geehrte": true, "geehrter": true, "guten": true, "anbei": true, "gemäß": true,
	"het": true, "een": true, "niet": true, "zijn": true, "voor": true, "wij": true,
	"naar": true, "bij": true, "ook": true, "wordt": true, "worden": true, "geachte": true,
	"groet": true, "vriendelijke": true, "bijgaand": true,
	// French, Spanish, Portuguese, Italian, Catalan, Romanian
	"les": true, "du": true, "pour": true, "dans": true, "avec": true, "nous": true,
	"vous": true, "pas": true, "je": true, "votre": true, "sur": true, "aux": true,
	"une": true, "ce": true, "qui": true, "cordialement": true, "que": true, "en": true,
	"por": true, "una": true, "es": true, "sus": true, "como": true, "este": true,
	"esta": true, "atentamente": true, "saludos": true, "solicitud": true, "os": true,
	"em": true, "não": true, "uma": true, "ao": true, "é": true, "à": true,
	"atenciosamente": true, "di": true, "che": true, "della": true, "sono": true, "ai": true,
	"nel": true, "alla": true, "dei": true, "degli": true, "sensi": true, "cordiali": true,
	"saluti": true, "distinti": true, "gentile": true, "și": true, "în": true, "cu": true,
	"nu": true, "pentru": true,
	// Albanian, Polish, Czech, Slovak, Croatian, Serbian, Bosnian, Slovene
	"dhe": true, "të": true, "te": true, "në": true, "që": true, "nga": true, "një": true,
	"është": true, "nie": true, "się": true, "że": true, "jest": true, "oraz": true, "dla": true,
	"przez": true, "pozdrawiam": true, "že": true, "jsou": true, "není": true, "pozdravem": true,
	"za": true, "nije": true, "kao": true, "koji": true,
	// Swedish, Danish, Norwegian; Hungarian, Turkish; Indonesian
	"och": true, "og": true, "ikke": true, "för": true, "är": true, "som": true, "inte": true,
	"på": true, "har": true, "jeg": true, "hilsen": true, "hej": true, "és": true, "hogy": true,
	"nem": true, "egy": true, "ve": true, "bir": true, "bu": true, "için": true, "ile": true,
	"yang": true, "dengan": true, "kami": true, "untuk": true, "tidak": true,
}

// foreignWord reports whether the (lower-cased) word w is another
// language's function word (foreignWords) or holds a letter of a script
// other than Latin (Greek, Cyrillic, Arabic, Hebrew, CJK …).
func foreignWord(w string) bool {
	if foreignWords[w] {
		return true
	}
	for _, r := range w {
		if r >= utf8.RuneSelf && unicode.IsLetter(r) && !unicode.Is(unicode.Latin, r) {
			return true
		}
	}
	return false
}

// accented reports whether the word w holds a Latin letter outside ASCII
// ("información", "gemäß", "załączniku"). A terse reply with two such
// words is not read as English: one is a name ("José", "Peña") as often
// as not.
func accented(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			r, _ := utf8.DecodeRuneInString(w[i:])
			return unicode.Is(unicode.Latin, r)
		}
	}
	return false
}

// foreignTerse reports whether a terse reply's words (prose) say it is
// not English: a foreign word (foreignWord), or two accented words.
func foreignTerse(prose []token) bool {
	accents := 0
	for _, t := range prose {
		if foreignWord(t.word) {
			return true
		}
		if accented(t.word) {
			if accents++; accents == 2 {
				return true
			}
		}
	}
	return false
}

// terseWords is the word count under which a reply short of English
// function words is still read as English when it holds no foreign one
// (foreignWords): staff notes ("Denied - active investigation. Records
// Unit, Bellhaven PD") are English in nouns and verbs alone.
const terseWords = 25

// language reports whether the words of body (words, its tokens) read as
// English or, if not, as German (at least 5 words, as large a share of
// German function words as English needs). A text reads as English when
// it has fewer than 12 words (the benefit of the doubt), when English
// function words are minEnglishShare of its words or more, or, not read
// as German, when it has fewer than terseWords words and nothing foreign
// (foreignTerse).
// The parts of web and e-mail addresses are no language's words: when the
// English share falls short, all is taken without them.
func language(body string, words []token) (english, german bool) {
	n, share := wordShare(words, englishWords)
	if n < 12 || share >= minEnglishShare {
		return true, false
	}
	prose := proseTokens(body, words)
	if n, share = wordShare(prose, englishWords); n < 12 || share >= minEnglishShare {
		return true, false
	}
	if gn, gshare := wordShare(prose, germanWords); gn >= 5 && gshare >= minEnglishShare {
		return false, true
	}
	return n < terseWords && !foreignTerse(prose), false
}

// proseTokens returns the tokens of body (in order) that are not part of a
// web or e-mail address: a whitespace-delimited run holding "://", "@" or
// starting "www.". One pass over body.
func proseTokens(body string, words []token) []token {
	out := make([]token, 0, len(words))
	t := 0
	for lo := 0; lo < len(body) && t < len(words); {
		for lo < len(body) && isSpaceByte(body[lo]) {
			lo++
		}
		hi := lo
		for hi < len(body) && !isSpaceByte(body[hi]) {
			hi++
		}
		run := body[lo:hi]
		address := strings.Contains(run, "://") || strings.IndexByte(run, '@') >= 0 ||
			len(run) >= 4 && strings.EqualFold(run[:4], "www.")
		for ; t < len(words) && words[t].start < hi; t++ {
			if !address {
				out = append(out, words[t])
			}
		}
		lo = hi
	}
	return out
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// wordShare returns how many words a text has (numbers, "$" and "§" aside)
// and the share of them that are in set.
func wordShare(words []token, set map[string]bool) (int, float64) {
	n, in := 0, 0
	for _, t := range words {
		if t.word == "#" || t.word == "$" || t.word == "§" {
			continue
		}
		n++
		if set[t.word] {
			in++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return n, float64(in) / float64(n)
}

// Prior is expert knowledge about one feature: the class it speaks for and
// how strongly (a logit), from the cue table's hand-set weights. Training
// regularises the model towards these values instead of towards zero, so
// that a cue the training replies rarely show keeps its FOIA meaning.
type Prior struct {
	Class  workflow.Class
	Weight float64
}

// Priors returns the prior of every cue and fact feature, by feature name.
func Priors() map[string]Prior {
	out := map[string]Prior{}
	for _, table := range [][]rule{rules, titleRules} {
		for _, r := range table {
			out["cue:"+r.name] = Prior{r.class, r.weight}
		}
	}
	for name, p := range factPriors {
		out["x:"+name] = p
	}
	return out
}

// factPriors are the priors of the exact extractors' findings.
var factPriors = map[string]Prior{
	"fee_amount":             {workflow.ClassFeeQuote, 4.0},
	"amount_uncued":          {workflow.ClassFeeQuote, 2.0},
	"rate_only":              {workflow.ClassFeeQuote, 2.5},
	"delivered_and_withheld": {workflow.ClassPartial, 3.0},
	// Questions answered in place with one not held or withheld.
	"answered_but_not_all": {workflow.ClassPartial, 3.0},
	// Fewer pages released than reviewed: the rest were withheld.
	"pages_withheld":         {workflow.ClassPartial, 2.5},
	"portal_vendor":          {workflow.ClassPortalRedirect, 1.5},
	"exemption_cited":        {workflow.ClassDenial, 1.0},
	"not_held_but_elsewhere": {workflow.ClassWrongAgency, 1.0},
	"cost_limit_narrow":      {workflow.ClassClarification, 3.0},
	// A reply that answers the request's questions in place has delivered
	// the information (the usual UK/AU form of a response).
	"answers_inline": {workflow.ClassRecordsReady, 2.5},
	// Numbered items answered after "see our response below": the same
	// form when the request's items are not questions; weaker, as a
	// refusal can be itemised too.
	"answers_items": {workflow.ClassRecordsReady, 1.5},
	// A quoted fee with "please confirm before we proceed" asks for
	// consent to the fee, not for a clarification.
	"fee_asks_consent": {workflow.ClassFeeQuote, 2.5},
	// An amount the reply reports ("the Council spent £2,345,678") is
	// information given.
	"reported_figure": {workflow.ClassRecordsReady, 1.0},
	// Review rights are a final decision's: they speak against a mere
	// acknowledgment (the only fact with a negative prior).
	"review_rights": {workflow.ClassAcknowledgment, -2.0},
	// An apology for lateness comes after the deadline: not a first
	// acknowledgment.
	"late": {workflow.ClassAcknowledgment, -1.5},
}
