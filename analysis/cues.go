package analysis

import (
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/foiaflow/foiaflow/workflow"
)

// rule is one piece of FOIA-domain evidence for a class. Rules run on the
// lower-cased body (the agency's own words); each rule counts once.
type rule struct {
	name   string
	class  workflow.Class
	weight float64
	re     *regexp.Regexp
	fr     fastRe
	// negatable rules do not count when the match is preceded closely by a
	// negation ("no records were withheld", "no redactions").
	negatable bool
	// overrides names rules of other classes that a match of this one
	// cancels where the two overlap: the specific reading beats the
	// generic one ("forwarded to the relevant department" is internal
	// routing, not a referral to another agency).
	overrides []string
	// unless: a match holding this is not the cue ("duplicate pages
	// have been removed" redacts nothing).
	unless *regexp.Regexp
	// alts are the pattern's top-level alternatives, each compiled on
	// its own with the literal sets its match must hold (its gate): in a
	// sentence, only the alternatives whose gate passes run, and a small
	// program runs on the fast backtracking matcher where the whole
	// alternation would need the slow NFA.
	alts []alternative
}

// alternative is one top-level branch of a cue pattern.
type alternative struct {
	re *regexp.Regexp
	// start finds re's matches from the literals they start with.
	start startRe
	// gate: for each part of the branch, literals one of which the match
	// contains (nil: no literal, always run).
	gate [][]gateLit
}

const (
	cAck  = workflow.ClassAcknowledgment
	cExt  = workflow.ClassExtension
	cFee  = workflow.ClassFeeQuote
	cDen  = workflow.ClassDenial
	cPart = workflow.ClassPartial
	cRdy  = workflow.ClassRecordsReady
	cNone = workflow.ClassNoRecords
	cClar = workflow.ClassClarification
	cWrng = workflow.ClassWrongAgency
	cPort = workflow.ClassPortalRedirect
)

func r(class workflow.Class, w float64, name, pattern string) rule {
	re := regexp.MustCompile(pattern)
	fr := newFastRe(re) // its alternatives are the rule's: compiled once
	return rule{name: name, class: class, weight: w, re: re, fr: fr, alts: fr.alts}
}

// alternativesOf splits pattern at its top-level "|" and compiles each
// branch with its gate.
func alternativesOf(pattern string) []alternative {
	var out []alternative
	flags := ""
	if strings.HasPrefix(pattern, "(?") {
		if end := strings.IndexByte(pattern, ')'); end > 0 && !strings.Contains(pattern[:end], ":") {
			flags, pattern = pattern[:end+1], pattern[end+1:]
		}
	}
	if inner, ok := wholeGroup(pattern); ok {
		pattern = inner
	}
	for _, src := range topLevelBranches(pattern) {
		src = flags + src
		a := alternative{re: regexp.MustCompile(src)}
		a.start = newStartRe(a.re)
		if p, err := syntax.Parse(src, syntax.Perl); err == nil {
			p = p.Simplify()
			parts := []*syntax.Regexp{p}
			if p.Op == syntax.OpConcat {
				parts = p.Sub
			}
			var sets [][]string
			for _, part := range parts {
				if l := requiredLiterals(part); l != nil {
					sets = append(sets, l)
				}
			}
			// The most selective sets first: a sentence without a match
			// usually fails the gate on its first set.
			slices.SortStableFunc(sets, func(x, y []string) int { return selectivity(y) - selectivity(x) })
			for _, l := range sets {
				a.gate = append(a.gate, gateLits(l))
			}
		}
		out = append(out, a)
	}
	return out
}

// wholeGroup returns the inside of a pattern that is one non-capturing
// group, "(?:a|b)" → "a|b".
func wholeGroup(pattern string) (string, bool) {
	if !strings.HasPrefix(pattern, "(?:") {
		return "", false
	}
	end := -1
	walkPattern(pattern, func(i int, c byte, depth int) bool {
		if c == ')' && depth == 0 {
			end = i
			return false
		}
		return true
	})
	if end != len(pattern)-1 {
		return "", false
	}
	return pattern[3:end], true
}

// topLevelBranches splits a pattern at "|" outside parentheses and
// character classes.
func topLevelBranches(pattern string) []string {
	var out []string
	start := 0
	walkPattern(pattern, func(i int, c byte, depth int) bool {
		if c == '|' && depth == 0 {
			out = append(out, pattern[start:i])
			start = i + 1
		}
		return true
	})
	return append(out, pattern[start:])
}

// walkPattern calls visit for each byte of a regexp pattern that is not
// escaped and not inside a character class, with the parenthesis depth
// after it, until visit returns false.
func walkPattern(pattern string, visit func(i int, c byte, depth int) bool) {
	depth, inClass := 0, false
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '\\':
			i++
			continue
		case inClass:
			inClass = c != ']'
			continue
		case c == '[':
			inClass = true
			continue
		case c == '(':
			depth++
		case c == ')':
			depth--
		}
		if !visit(i, c, depth) {
			return
		}
	}
}

// passes reports whether sentence (lower-cased) holds a literal of every
// set of the gate. grams, when not nil, are the byte pairs of sentence: a
// literal whose first or last pair is not among them is not looked for.
// ix, when not nil, indexes the text sentence starts at offset at of: a
// literal of three bytes or more is looked up there.
func (a *alternative) passes(sentence string, ix *gramIndex, at int, grams *gramSet) bool {
	for _, set := range a.gate {
		found := false
		for i := range set {
			l := &set[i]
			if grams != nil && !grams.mayHold(l) {
				continue
			}
			if ix != nil && len(l.s) >= 3 {
				found = ix.containsIn(l.s, at, at+len(sentence))
			} else {
				found = strings.Contains(sentence, l.s)
			}
			if found {
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// matches returns the matches of ru in the span sp of the text ix indexes
// (offsets within the span), leftmost first, from the branches whose gate
// passes (grams: the byte pairs of the span, or nil).
func (ru *rule) matches(ix *gramIndex, sp [2]int, grams *gramSet, buf [][]int) [][]int {
	buf = buf[:0]
	sentence := ix.text[sp[0]:sp[1]]
	for i := range ru.alts {
		a := &ru.alts[i]
		if a.passes(sentence, ix, sp[0], grams) {
			buf = append(buf, a.start.findAll(sentence, 8)...)
		}
	}
	if len(buf) > 1 {
		sort.Slice(buf, func(i, j int) bool {
			if buf[i][0] != buf[j][0] {
				return buf[i][0] < buf[j][0]
			}
			return buf[i][1] > buf[j][1]
		})
	}
	return buf
}

// keyed sets a rule's prefilter keys by hand: literals one of which every
// match contains, for patterns whose own literals are too common to filter
// ("please", "will").
func keyed(x rule, keys ...string) rule {
	x.fr = fre(x.re.String(), keys...)
	return x
}

// except sets a rule's unless pattern: a match whose sentence holds it
// does not count.
func except(x rule, pattern string) rule {
	x.unless = regexp.MustCompile(pattern)
	return x
}

func over(x rule, names ...string) rule {
	x.overrides = names
	return x
}

func rn(class workflow.Class, w float64, name, pattern string) rule {
	x := r(class, w, name, pattern)
	x.negatable = true
	return x
}

// titleRules read an attachment's name as a letter's title ("2024-118
// Denial Letter.pdf", "Acknowledgement 24-118.pdf", "Cost Estimate.pdf"):
// words that say what a letter is when they name the file, and are too
// common to say it in a sentence.
var titleRules = []rule{
	// A name opening with "Acknowledgement" is the letter; "Policy
	// Acknowledgement - Officer Smith.pdf" is a record. Names are joined
	// with ". ".
	r(cAck, 2.0, "title.acknowledgment", `(^|\. )acknowledge?ments?\b|\backnowledge?ment (letter|notice|of (receipt|request|your request))\b|\breceipt (letter|notice)\b`),
	r(cExt, 2.0, "title.extension", `\b(time )?extension (letter|notice)\b|\bnotice of extension\b`),
	r(cFee, 2.0, "title.fee", `\b(cost|fee|fees) (estimate|quote|letter|notice)\b|\bestimate of (costs|fees)\b`),
	r(cDen, 2.0, "title.denial", `\b(denial|refusal|rejection) (letter|notice|response)\b|\bnotice of (denial|refusal)\b`),
	r(cNone, 2.0, "title.no_records", `\bno (responsive )?records?\b|\bno documents\b`),
	r(cClar, 2.0, "title.clarification", `\b(request for |need for )?clarification\b`),
	r(cPart, 2.0, "title.partial", `\bpartial (release|response|grant|disclosure)\b|\binterim (release|response)\b`),
}

const agencyWord = `(agency|agencies|department|dept|office|division|bureau|county|city|town|village|police|sheriff|court|clerk|commission|board|district|administration|authority|unit|ministry|state|school|university|college|hospital)`

// rules is the evidence table. Weights: 3–4 a phrase that by itself decides
// the class, 2–2.5 strong, 1–1.5 supporting, ≤1 weak/boilerplate.
var rules = []rule{
	// ACKNOWLEDGMENT
	r(cAck, 3.5, "ack.acknowledge_receipt", `acknowledg(e|es|ing|ment of) (the )?receipt|\b(writing|write) to acknowledge (your|the) (request|application|appeal|complaint|e-?mail)\b|this (letter|e-?mail|message|notice|is to) (is to )?acknowledges?\b|(confirm(s|ing)?|confirmation of) receipt of your|confirm(s|ing|ation)? (that )?your (\w+ ){0,3}(request|message|e-?mail|enquiry|inquiry|submission) (has been|was|is) (received|submitted|logged)`),
	r(cAck, 1.5, "ack.received_request", `\brequest received[.!:]|\b(we|i|office|department|agency|unit|division) (have|has) received your (\w+ ){0,5}(request|appeal)|(is|are) in receipt of your|your (\w+ ){0,5}request( [\w#/-]*\d[\w#/-]*)? (has been|was) (received|logged|entered|assigned|opened)`),
	r(cAck, 1.5, "ack.assigned_number", `(assigned|given) (the |a |case |request )?(tracking|request|reference|case|control|log) (number|no\b|#)|has been assigned (case|request|tracking)|\byour (\w+ )?(request|reference|tracking|case|confirmation) (number|no\b|#|id) is\b`),
	r(cAck, 1.5, "ack.being_processed", `(is|are) (currently )?being (processed|reviewed|worked on)|will be processed|(placed|assigned|reassigned) (it |your request )?(in|to|into) (the |our )?[\w-]+ ?(\w+ )?(processing )?queue|in the order (it was|they were|requests are) received|\b(is|are|am) (currently |now )?(gathering|collecting|compiling|locating|pulling|searching for|reviewing) (the |any |all |your )?(responsive |requested |relevant )?(records|documents|files|information|e-?mails|materials)|\b(request|it) is (still |currently )?(in process|in progress|pending)\b`),
	r(cAck, 2.0, "ack.forwarded_internally", `(\b(i'?ll|i will|we will|we'll|i have|we have) (forward|forwarded|send|sent|pass|passed|route|routed) (this|it|your (request|e-?mail|message))|\b(this|it|your (request|e-?mail|message)) (has been|was|is being|will be) (forwarded|sent|passed|routed)) (on |along |over )?to (her|him|them|the appropriate (person|staff)|our|the (person|staff|records))`),
	r(cAck, 1.5, "ack.will_respond", `\b(i am|i'm|we are|we're) (currently )?(looking into|working on) (this|it|your request)\b|\b(we|i) will (respond|get back to you|be in touch|follow up|contact you|notify you|let you know)|\byou will (receive|be sent|get) (updates|an update|status updates|notifications?|an e-?mail (notification|update|when))\b|\byou will be (notified|contacted|informed|updated)\b`),
	r(cAck, 0.5, "ack.thanks_for_request", `thank you for (your|submitting|contacting)[^.]{0,40}(request|inquiry)`),
	r(cAck, 1.0, "ack.out_of_office", `(is|am|are) (out|off|away)( of the office)? (today|this week|until)|out of the office`),
	r(cAck, 2.0, "ack.logged", `(has|have) (now )?been (logged|registered|recorded|opened|reopened|re-opened)\b|\b(have|has|had|i'?ve|we'?ve) (it |this |your request )?(logged|registered)\b|\b(logged|registered) (it|this|your request)\b|\breceived and logged\b|\blogged (as|under) [a-z]*\d|(logged|registered) (as|under) (a|an|the|reference|ref|number|no)\b|(will be|is being) (dealt with|handled|considered|processed) (under|in accordance with) the`),
	keyed(r(cAck, 1.5, "ack.respond_within", `(must|will|should|aim to|expect to|endeavou?r to) (respond|reply|provide (you with )?(a|our) (response|reply))[^.]{0,40}within (\d+|[a-z]+)( \(\d+\))? (working |business |calendar )?days|(you )?should (expect to )?receive (a|our) (response|reply)`), "within", "should receive", "should expect"),
	r(cAck, 2.0, "ack.automatic_reply", `\b(automatic|automated|auto-?generated) (reply|response|acknowledg\w*|receipt|confirmation)|\bauto-?reply\b|this (is an|is a) (automatic|automated) `),
	// A referral to a unit of the same body ("referred to the Office of
	// Legal Counsel within the Department", "to our Records Unit") is
	// internal routing.
	over(r(cAck, 2.5, "ack.referred_within", `\b(forwarded|referred|transferred|sent|routed|assigned|passed)\b[^.]{0,80}\bwithin (the|our|this) (department|agency|city|county|office|organi[sz]ation|university|district|ministry|council|authority|trust)\b|\b(forwarded|referred|transferred|routed|passed) (your request |this request |the request |it |this )?to (our|the city's|the county's|the department's|the agency's|the university's) `), "wrong.referred", "wrong.maintained_by_other"),
	over(r(cAck, 2.0, "ack.passed_to_department", `(passed|forwarded|sent|referred|allocated|assigned|get|got|getting) (your (request|e-?mail|enquiry) |it |this )?(on )?to the (relevant|appropriate|correct|responsible|right|proper) (department|service|team|officer|section|person|people|staff|division|unit)|(passed|referred|allocated|assigned) (it |this |your (request|review|complaint) )?to (a|an) (senior|independent|different) (officer|reviewer|member of staff|manager)`), "wrong.referred"),
	// A ruling on a side request (a fee waiver, expedited processing, a
	// fee category) is not a ruling on the records: "your request for
	// expedited processing is denied" leaves the request in the queue.
	over(r(cAck, 1.0, "ack.side_request_ruled", `\brequest for (a |an )?(fee waiver|waiver of (the )?fees|fee reduction|reduction of (the )?fees|reduced fees|expedited (processing|treatment|handling)|expedition|(news )?media (status|requester status|fee status|category)|fee category|public interest fee waiver)( [\w().]+){0,4} (is|has been|was) (hereby )?(denied|declined|rejected|granted|approved)|\brequests for (a |an )?(fee waiver|waiver of (the )?fees|fee reduction|reduction of (the )?fees|reduced fees|expedited (processing|treatment|handling)|expedition|(news )?media (status|requester status|fee status|category)|fee category|public interest fee waiver)( (and|or) (for )?(a |an )?(fee waiver|waiver of (the )?fees|fee reduction|reduction of (the )?fees|reduced fees|expedited (processing|treatment|handling)|expedition|(news )?media (status|requester status|fee status|category)|fee category|public interest fee waiver))?( [\w().]+){0,4} (are|have been|were) (hereby )?(denied|declined|rejected|granted|approved)`), "denial.denied", "denial.word"),
	// A request the agency entered into its portal for the requester is
	// acknowledged, not redirected: the portal is where it now lives.
	over(r(cAck, 3.0, "ack.in_portal", `\b(request|it)( [\w#-]+){0,2} (has been|was|is) (entered|created|logged|submitted|opened|added|registered) (into|in|on|through|to) (our|the) [^.]{0,40}(portal|center|centre|system|nextrequest|govqa)\b|\b(entered|submitted|created|logged) (it|your request|the request)( [^.]{0,40})? on your behalf\b`), "portal.track", "portal.login"),
	r(cAck, 1.5, "ack.duplicate_request", `(identical|duplicate|same as) (to )?(a |your )?(previous|earlier|prior|existing) request|already (been )?(received|logged|submitted) (a|this|your) request`),
	r(cAck, 1.5, "ack.received_your", `\b(received|receipt)\b[^.!?\n]{0,60}\b(your|the|this)\b[^.!?\n]{0,30}\b(request|application|e-?mail|message|correspondence|enquiry|inquiry)\b`),
	r(cAck, 1.5, "ack.will_act", `\bwill (determine|review|process|handle|respond|reach out|provide|notify|contact|forward|coordinate|search|gather|compile|be (in touch|reviewing|processing|responding|contacting))\b`),
	// Checking a request's status by logging in is tracking it, not being
	// sent to a portal to file it.
	over(r(cAck, 1.0, "ack.status_check", `\b(check|track|view|monitor|follow) the (status|progress)\b([^.]{0,60}\b(log ?in|logging in|sign ?in|signing in)\b[^.]{0,30}\b(account|portal|center|centre|system))?|status of (your|the|this) request`), "portal.login"),
	// Logging in to view a request already filed is navigation.
	over(r(cAck, 0.5, "ack.view_request_login", `\bto (view|see|check|track|monitor|access) (your|the|this) (request|message|status)\b[^.]{0,20}\b(log ?in|sign ?in)( to| into| at| on)? (the|our|your) [^.]{0,40}(portal|center|centre|system|account)|\b(log ?in|sign ?in)( to| into| at| on)? (the|our|your) [^.]{0,40}(portal|center|centre|system|account) to (view|see|check|track|monitor|access) (your|the|this) (request|message|status)\b`), "portal.login"),

	// EXTENSION
	rn(cExt, 2.5, "ext.extension", `\bextension\b|\bextend(ed|ing)? (the )?(time|deadline|response|due date|period|date)|\b(time|time limit|deadline|due date|period)( for (a |your |the |this )?(response|responding|reply|request|application|decision))? (is|has been|will be|shall be) (hereby )?extended`),
	// The agency takes an extension ("requires a 14-day extension",
	// "invoking the 10-day extension": 5 U.S.C. 552(a)(6)(B), Cal. Gov.
	// Code 7922.535, FOIA 2000 s.10(3)); "if we need an extension" does
	// not count.
	rn(cExt, 3.0, "ext.takes_extension", `\b(require|requires|required|need|needs|needed|take|takes|taking|invoke|invokes|invoking|exercise|exercising|claim|claiming|apply|applying|applied) (an?|the|our) ((\d+|[a-z]+)[- ](\(\d+\) )?(day|business[- ]day|working[- ]day|calendar[- ]day|week) |additional |further |statutory |formal )?extension\b`),
	r(cExt, 2.0, "ext.additional_time", `(additional|more|further) (\w+ )?(\(\d+\) )?(business |working |calendar )?(days|weeks|months|time)\b[^.]{0,40}(will be |is |are )?(required|needed|necessary)|(need|require|requires|needs)(( an)? (additional|more|further)| a (further|additional)) (\w+ )?(\(\d+\) )?(business |working |calendar )?(time|days|weeks)`),
	r(cExt, 1.5, "ext.anticipated_response", `(anticipate|expect|estimate)[^.]{0,40}(response|decision|determination|completion|to (respond|complete|provide)|be (completed|finali[sz]ed|ready))[^.]{0,20}(by|on or before|no later than|on)`),
	// A first installment promised for a date is a schedule, not a
	// delivery (RCW 42.56.520's five-day letter: "anticipates providing a
	// first installment of records by January 20").
	over(r(cExt, 2.0, "ext.installment_planned", `(anticipate[sd]?|expect(s|ed)?|estimate[sd]?|plan(s|ned)? to)( to)? (be )?(provid|produc|releas|send|mak)\w* (a |the |its |our |your )?(first|initial|1st) (installment|production|release|batch|set)\b[^.]{0,80}\b(by|on or before|no later than|on|within|in)\b`), "partial.installment", "partial.more_to_follow"),
	// Texas Gov't Code 552.301: a ruling asked of the Attorney General
	// stops the clock until the ruling (45 business days); a letter that
	// only says it may ask is an acknowledgment.
	r(cExt, 2.5, "ext.attorney_general_ruling", `(\b(have|has|had) (now |already )?(requested|sought|asked for)|\b(are|is|am) (now )?(requesting|seeking|asking for)|\b(we|i|city|county|department|agency|office|district) (requested|sought|asked for)) (a |an )?(ruling|decision|opinion) (from|of) the (office of the )?attorney general`),
	r(cExt, 2.5, "ext.unusual_circumstances", `unusual circumstances`),
	r(cExt, 2.5, "ext.estimated_date", `estimated (date of )?(completion|response|production|release|delivery)( date)?|(anticipated|expected|projected|target) (completion|response|production|release) date|(updated|revised|new) (estimated |estimate[sd]? )?(completion|due|response) date`),
	r(cExt, 2.0, "ext.queue_position", `(requests?|cases?) ahead of (yours|your request|you)|(backlog|complex (\w+ )?queue)`),
	r(cExt, 1.5, "ext.takes_duration", `(take|require|need|be completed in|completed within|complete within|ready in|available in) (approximately |about |an estimated |up to )?(\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty|sixty|ninety)( \(\d+\))? (more )?(business |working |calendar )?(days|weeks|months|years)`),
	r(cExt, 1.0, "ext.statute_extension", `7922\.535|6253\(c\)|552\(a\)\(6\)\(b\)|15\.235\(2\)`),
	r(cExt, 2.5, "ext.more_time", `section 10\(3\)|extend the (\d+|twenty|ten) (working|business) day|(more|further|additional|extra) time (to|in order to) (consider|determine|complete|respond|reply|process|finali[sz]e|review|locate|collate)|(need|require)s? (a little |a little bit |a bit |some )?(more|further|additional|extra) time|\b(need|needs|require|requires|will need|will require) until\b`),
	r(cExt, 2.0, "ext.cannot_meet_deadline", `not in a position to (reply|respond|answer) within|(will not|won't|cannot|can't|are unable to|not be able to) (be able to )?(meet|make|respond (to you )?within|reply within|provide (you with )?(a|our|the) (response|reply|information) (within|by))|(taking|take) (us )?(longer|into next week|a little longer|more time)|\b(is|are|am|was|were|been|be) (unable|not able) to (complete|process|respond to|fulfil|fulfill|finish|finali[sz]e) [^.]{0,40}\bwithin (the )?(statutory|required|legal|allotted|\d+|ten|twenty|five)\b|\b(have|has) not (yet )?been able to (respond|reply|complete|provide)[^.]{0,40}\bwithin (the )?(statutory|required|legal|allotted|\d+|ten|twenty|five)\b|\b(have|has) not (yet )?been able to (complete|finali[sz]e|finish) (our|the|your|a) (response|reply|request)\b`),
	r(cExt, 2.0, "ext.agree_extension", `(agree|consent|agreeable) to (an? |the )?([\w-]+ ){0,2}(extension|extend)|(please|kindly) (agree|confirm)[^.]{0,40}(extension|extend|until|new (date|deadline))`),
	r(cExt, 1.5, "ext.third_party_consultation", `consult(ation|ing)? with (a |the )?(third part(y|ies)|other (agencies|bodies|parties|departments))|third[- ]party (consultation|notification)|coordination with other (government )?agencies`),
	r(cExt, 1.5, "ext.new_deadline", `(new|revised|extended|amended) (deadline|due date|response date|target date|timescale)|\b(a |the |our )?(decision|determination) (is|will) now (be )?due\b|(response|reply|information|records) (will be|should be) (provided|sent|available|ready) (by|no later than|on or before)`),
	r(cExt, 2.5, "ext.adjust_date", `\b(adjust|change|move|push|revise|update|extend)\b[^.!?\n]{0,30}\b(estimated|completion|due|response) date|\b(due|completion|response) date\b[^.!?\n]{0,40}\b(has been|was|is being) (changed|extended|moved|updated|revised|adjusted|pushed)\b`),

	// FEE_QUOTE
	r(cFee, 2.5, "fee.estimate", `(fee|cost|charge|price) estimate|estimated (fees?|costs?|charges?|amount|total)|estimates? (of )?(the |that the )?(fees?|costs?|charges?)|(cost|fee) (breakdown|justification)|breakdown of the (fee|cost)s?`),
	r(cFee, 2.0, "fee.invoice", `\binvoice`),
	r(cFee, 1.5, "fee.deposit", `\bdeposit\b`),
	r(cFee, 2.0, "fee.prepay", `pre-?pay|prepayment|advance payment|payment (is |will be )?required|payment (must|should) be (made|received)`),
	r(cFee, 2.0, "fee.payable", `(checks?|money orders?) (\w+ ){0,2}(made )?payable|make (your |the )?(check|payment) payable|remit (a |the |your )?(check|payment)|please (mail|send|remit) (your |the )?payment|pay (by|with|via|using) (check|credit|card|money order)|(credit card|payment) (can be|may be) (taken|made)`),
	r(cFee, 2.5, "fee.payment_status", `(not|n't|have not|has not|haven't) (yet )?received (any |your |the )?payment|(until|once|upon|after|when) (the |your )?(payment|invoice|fee|deposit)s? (is |are |has been |have been )?(received|paid|made)|receipt of (your |the )?(payment|deposit|fees?)|(invoice|fee|balance) (is |has been )?paid in full`),
	// The requester's own "I am (not) willing to pay", echoed in a form or
	// a restated request, is no ask of the agency's.
	except(r(cFee, 1.5, "fee.proceed", `(wish|like|want|willing|agree|decide) to (proceed|pay|accept|move forward)|whether you (agree|wish|want|would like)|agree to (this|the|these) (fee|amount|cost|charge)s?|accept the charges`), `\bi( am|'m| would be)? (not )?(willing|happy|prepared|able) to pay\b`),
	r(cFee, 1.0, "fee.labor", `labor (costs?|rate|charges?)|special service charge|search (fee|time|charges?)|(duplication|copying|copy|programming|research|processing) (fees?|charges?|costs?)|hourly rate|staff time`),

	// DENIAL
	rn(cDen, 3.5, "denial.denied", `(request|it|access|disclosure|appeal)([^.]{0,60}?)? (is|has been|was|are|were|must be|will be) (hereby |respectfully |therefore )?(denied|rejected|declined)|(must|hereby|respectfully|therefore) (deny|denies|decline|declines)|(deny|denying) (your|the|this) (request|access)`),
	rn(cDen, 1.0, "denial.word", `\bdenial\b|\bdenied\b`),
	rn(cDen, 2.0, "denial.refuse", `\b(refuse|refuses|refused|refusing)\b|\brefusal( notice| of (the|your) request)?\b`),
	r(cDen, 3.0, "denial.vexatious", `\bvexatious\b|section 14\((1|2)\)|section 14 of the (freedom of information|foi|foisa)\b|repeated request|manifestly unreasonable`),
	r(cDen, 3.0, "denial.ncnd", `neither confirm(s|ing)? nor den(y|ies|ying)|(cannot|can not|will not|won't) confirm (or|nor) deny|glomar`),
	keyed(rn(cDen, 2.0, "denial.cannot_disclose", `(we|i|the (council|department|agency|office|city|county|authority)) (are|am|is|will be) (withholding|not (able to )?(disclose|disclosing|release|releasing|provide|providing)) (this|the|that|these|those|any|all)|(cannot|can not|unable to|will not|won't) (disclose|release|provide|supply) (this|the|that|these|those|any|all|copies)( of)?( requested| responsive)? (information|records?|documents?|data|material|video|footage|recordings?|reports?|files?|e-?mails?|photos?|images?)|(records?|documents?|information|files?|reports?|footage|they|it|and) (cannot|can not|may not|will not|shall not) be (released|disclosed|made public)\b|\b(declines?|declined|declining) to (produce|release|disclose|provide)\b|\baccess (cannot|can not|could not|will not) be (granted|given|provided)\b`), "withholding", "not ", "cannot", "can not", "unable", "won't", "declin"),
	r(cDen, 1.5, "denial.cost_limit", `(exceed|exceeds|exceeded|exceeding|beyond|over) the (appropriate|cost|fees?) limit|appropriate limit|section 12\b|cost of compliance`),
	r(cDen, 2.0, "denial.exempt_section", `(is|are|be|been) (considered |deemed )?exempt (from disclosure )?(under|by virtue of|in accordance with|pursuant to) (section|s\.|regulation|reg\.|exemption|article)`),
	over(r(cDen, 3.0, "denial.attached_refusal", `\b(attached|enclosed|below|find)\b[^.!?\n]{0,40}\b(refusal|denial|refusal notice|decision to refuse|decision to withhold)\b`), "ready.response_below", "ready.attached_anything"),
	r(cDen, 2.0, "denial.active_investigation", `(active|ongoing|pending|open) (criminal |police |law enforcement )?(investigation|case|litigation|prosecution)[^.!?\n]{0,80}\b(exempt|withh\w*|not (be )?(released|disclosed)|deny|denied)|\b(unable to|cannot|can not|will not|not able to) (release|disclose|provide|produce)[^.!?\n]{0,80}\b(active|ongoing|pending|open) (criminal |police |law enforcement )?(investigation|case|litigation|prosecution)`),
	rn(cDen, 2.0, "denial.exempt", `(not subject to|exempt(ed)? from|prohibited from|protected from) (public )?(disclosure|release|production|inspection)|(is|are) (confidential|privileged)( [\w-]+){0,3} (and|under|pursuant|by law)|(is|are) (generally )?exempt (under|pursuant|by|as|because|since)`),
	r(cDen, 3.0, "denial.withheld_in_full", `withh(eld|olding) (\w+ ){0,3}in (its|their) entirety|withh(eld|olding) (\w+ ){0,3}in full|(release|disclose|produce) (no|none of the) (records|documents)`),
	// Withholding "the information" (all of it) under an exemption is a
	// refusal; a partial release withholds "some" or "parts of" it.
	rn(cDen, 2.5, "denial.withholding_all", `\b(are|is|am|will be) withholding (the|this|all|that|all of the|all the) (requested )?(information|records|documents|data)\b|\b(are|is|am|will be) withholding (it|them) (in full |in its entirety )?(under|pursuant to|in reliance on|on the basis of)\b`),
	r(cDen, 2.5, "denial.not_required", `not (required|obligated) to (respond|provide|produce|disclose|release|answer|comply)`),
	r(cDen, 2.0, "denial.will_not", `(will|shall|would) not (be )?(receiving|releasing|release|providing|provide|disclosing|disclose|producing|produce|fulfill|process)`),
	r(cDen, 3.0, "denial.at_an_end", `(responsibility|obligation|duty)[^.]{0,80}(is|are) at an end`),
	r(cDen, 1.0, "denial.court_remedy", `(institute|file|bring|commence) an? (action|suit|petition)|declaratory[^.]{0,30}relief`),
	r(cDen, 3.0, "denial.appeal_missed", `(missed|passed|expired|past) (the )?(deadline|time|period) (to|for) (file )?(an )?appeal|appeal (period|deadline|window) (has )?(passed|expired)`),
	r(cDen, 1.5, "denial.closed", `(consider|considered|deem|deemed) (the|this|your) (matter|request|case) (closed|concluded|resolved)|(matter|request) is (now )?closed`),
	r(cDen, 1.0, "denial.appeal_rights", `(you may|right to|may file an?|may submit an?|you can) (administratively )?appeal|appeals? officer`),
	// An internal review or appeal that keeps the refusal.
	r(cDen, 2.0, "denial.review_upheld", `\b(uphold|upholds|upheld|upholding|maintain|maintains|maintaining|affirm|affirms|affirmed|affirming) (the |our |my )?(original|initial|previous|earlier)? ?(decision|response|refusal|determination)\b|\b(original|initial) (decision|refusal|response) (is|was|has been) (upheld|maintained)\b`),
	// The Texas Attorney General's ruling, once given, decides the request.
	r(cDen, 3.0, "denial.attorney_general_ruled", `\battorney general (has )?(now )?(ruled|concluded|determined|decided|found) that\b|\bopen records (letter|ruling) (no\b|number)|\bor20\d\d-\d+`),
	r(cDen, 2.0, "denial.previously_declined", `(already|previously) (been )?(denied|declined|rejected)|same response`),
	r(cDen, 3.5, "denial.no_records_but_exempt", `(no|any) (\w+ ){0,3}records[^.]{0,60}(except|other than|apart from) (for )?(those|records|documents)[^.]{0,30}exempt`),
	r(cDen, 2.5, "denial.out_of_state", `(out-of-state|non-?resident|not a (citizen|resident)) (requester|requestor|citizen|resident)`),

	// PARTIAL_DELIVERY
	r(cPart, 2.5, "partial.installment", `(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|\d+(st|nd|rd|th)|next|rolling|partial|interim|initial) (production|installment|release|batch|set|tranche|disclosure) of|\b(here'?s|attached is|attached are|enclosed is) the (first|initial) (batch|installment|instalment|set)\b|\b(first|initial) (batch|installment|instalment) (is )?(attached|enclosed)\b`),
	r(cPart, 2.0, "partial.more_to_follow", `(next|another|further|additional|subsequent|remaining) (installment|production|release|batch|tranche|disclosure)|(more|additional|remaining|further|rest of the) (records|materials|documents|information|data)[^.]{0,60}(to follow|will follow|will be (released|provided|produced|sent)|(we|i) will (provide|send|release|produce))|(still|currently) (collating|gathering|compiling|collecting|awaiting|waiting for) (all |the )?(further|remaining|rest|other|outstanding)|(anticipate|expect)[^.]{0,40}(release|provide|produce)[^.]{0,40}(materials|records|documents|installment)|\b(i'?ll|i will|we'?ll|we will|will) send (the rest|the remainder)( over| along| on)? (separately|(when|once) (i|we) (get|have|receive))\b|\bhere'?s what (we|i) (have|found|located) so far\b`),
	r(cPart, 3.0, "partial.in_part", `\b(access to )?an edited copy\b|grant(s|ed)? (the request )?in part|denied in part|partially (granted|denied)|released in part|\b\d[\d,]* (pages?|records?|documents?) (are being |were |are )?(released )?in part\b|partial (release|grant|denial|response)|in part and denied|\b(interim|partial) (response|reply|disclosure)\b`),
	// "Exemptions (b)(6) and (b)(7)(C) were asserted to protect
	// information" (the FBI's FOIPA release letter): something withheld.
	rn(cPart, 2.0, "partial.exemptions_asserted", `\bexemptions?\b[^.]{0,40}\b(were|was|have been|has been|are being|is being) (asserted|applied|invoked|claimed)\b`),
	rn(cPart, 1.5, "partial.redacted", `\bredact(ed|ions?)\b|\b(was|were|been) severed\b`),
	rn(cPart, 1.5, "partial.withheld", `\bwithh(eld|olding)\b`),
	// The other words for a redaction: blacked out, masked, blurred,
	// pixelated, muted, excised, obscured, removed, left out, not
	// disclosed ("we removed the home addresses before releasing them").
	except(rn(cPart, 3.0, "partial.obscured", `\b(have been|has been|had to be|were|was|are|is|we|i|had to|have|has) (black(ed)? out|masked|blurred|pixel(l)?ated|pixeli[sz]ed|muted|excised|obscured|obliterated|whited out)\b|\bdeletions\b|\b(we|i) (have )?(removed|omitted|left out|excluded|taken out|deleted) (the |all |any )?([\w'-]+ ){0,3}(names?|addresses|numbers?|details|information|data|identif\w*|signatures?|photos?|images?|faces?|portions?|parts?|pages?|sections?|segments?|footage|audio)\b|\b(names?|addresses|numbers?|details|information|data|identifiers?|signatures?|portions?|parts?|pages?|sections?|segments?|videos?|footage|recordings?|e-?mails?|records?|documents?|files?|items?|messages?|handful|several|a few)( [\w'-]+){0,5} ((were|was|have been|has been) (removed|omitted|left out|excluded|deleted)|((were|was|have been|has been) not|(have|has) not been) (disclosed|released|included))\b`), `duplicat|to reduce|file size`),
	r(cPart, 1.0, "partial.not_yet_available", `(is|are) not (yet )?available (for|until)|not (yet )?available until`),
	rn(cPart, 3.0, "partial.some_withheld", `(some|part of the|certain|parts of the|portions of the|elements of the|some of the) (information|records|documents|details|data|material|emails|pages)[^.]{0,60}(withheld|redacted|removed|exempt|excepted|not (been )?(disclosed|released|provided|included))|\b(first|1st) part of the (information|records|data|documents)\b|\bresponsive to (portions|parts|part|some) of your request\b`),
	r(cPart, 2.0, "partial.personal_data_removed", `section 40\(2\)|regulation 13\b|(personal|third[- ]party) (data|information|details)[^.]{0,60}(withheld|redacted|removed|not (been )?(disclosed|included))|(names|contact details|signatures|personal details)[^.]{0,40}(have been |were |are )?(withheld|redacted|removed)`),
	r(cPart, 2.0, "partial.remainder", `(remaining|rest of the|other parts? of (your|the) request|remainder of (your|the) request)[^.]{0,80}(will (be )?(follow|provide|send|release)|to follow|not held|exempt|withheld)|(we are|still) (currently )?collating (all )?(further|the remaining|the rest)`),

	// RECORDS_READY
	r(cRdy, 2.5, "ready.attached_records", `(attached|enclosed)( please find| are| is| you will find|,)? (the |your |all )?(\w+ )?(responsive |requested )?(records|documents|files|materials|emails|reports|photos|video|footage|data)\b|(records|documents|files|materials)( responsive to (your|this) request)? (are|is|have been) (attached|enclosed)|please (find|see) (the )?(attached|enclosed) (records|documents|files)|documents attached to the e-?mail|\b(records|documents|files|pages|copies|materials)\b[^.!?\n]{0,20}, (which|that) (are|is|have been) (attached|enclosed)\b`),
	r(cRdy, 2.0, "ready.download", `(files?|records?|documents?) (are |is )?(now )?available (for you )?(to|for) (download|pick ?up|review)|available for download|ready for (pick ?up|download|release|collection)|(download|access) (the |your )?(records|files|documents)`),
	rn(cRdy, 3.0, "ready.completed", `(request|it) (has been|is|was|have been) (completed|fulfilled|satisfied)|completed (your|the|this) request|request (is )?complete\b`),
	r(cRdy, 2.0, "ready.link", `(via|through|using|in|at) (a|the) (sharefile|share ?file|dropbox|box|google drive|onedrive|sharepoint|secure|download|file ?share)( link)?|use the links? (below|above) to (access|download|view)|in the share with|\bshared (a |the )?(google drive |dropbox |onedrive |box |sharepoint |sharefile )?(folder|link|drive|files?) with you\b`),
	r(cRdy, 1.5, "ready.disclosing", `(is |are |am |we are |i am )(disclosing|releasing|producing|providing|sending) (\w+ ){0,2}(the |these |your )?(documents|records|files|materials|pages)|release of [^.]{0,40}(records|materials|documents)|\b(am|are|is) (releasing|disclosing|providing) ([\w']+ ){1,4}(to you )?in full\b|\bgrant(ed|ing)? (you )?(your request|the request|access|full access)( to [\w ]{0,30})? in full\b|\bpoint[- ]?wise information\b[^.:]{0,40}\b(as follows|as under|given below)`),
	r(cRdy, 1.0, "ready.sent", `(sent|mailed|provided|emailed|delivered|shipped) (out )?to you`),
	keyed(r(cRdy, 0.5, "ready.response_below", `please (find|see)\b[^.!?\n]{0,60}\b(response|information|answers?|reply|documents|records|data)\b[^.!?\n]{0,40}\b(below|attached|enclosed|as follows)|please (find|see) (attached|enclosed|below)[^.!?\n]{0,80}\b(response|information|documents|records|reply|answers?|data)\b|\b(response|information|answers?)\b[^.!?\n]{0,40}\b(is|are)? ?(set out|provided|given|shown) below|\bresponse\b[^.!?\n]{0,30}\b(is|are) as follows|\b(our )?(response|answer):`), "below", "as follows", "response:", "answer:", "attached", "enclosed"),
	r(cRdy, 2.0, "ready.information_provided", `\b(i|we|city|county|department|agency|office|district|town|village|borough|board|commission|council|authority|division|unit|bureau) (have|has|are|is|am) (now )?(attached|enclosed|provided|providing|disclosed|disclosing|released|releasing|supplied|supplying) ([\w()-]+ ){0,5}(information|records|documents|data|copies|spreadsheet|report|file|response|pages)\b|(information|records|documents|data) (you requested|requested) (is|are) (attached|enclosed|below)|here (is|are) the (information|records|documents|data)|\bplease find (it|them|these|this) (attached|enclosed)\b|\bhere (you go|they are|it is)\b|\b(information|data|figures|details)( (that )?you (have )?(requested|asked for|sought)| requested)\b[^.!?\n]{0,20}\b(is|are) (set out |shown |provided |given |listed |detailed )?(below|as follows|in the (table|spreadsheet|attachment) below)\b|\bthe (figures|numbers|totals|statistics)( you (requested|asked for)| requested)? (are|is)( as follows)?:|\b(see|find) (below )?the (figures|numbers|totals|statistics)( you (requested|asked for)| requested)? below\b|\bbelow (is|are) the (figures|numbers|totals|statistics)\b`),
	r(cRdy, 2.0, "ready.published_elsewhere", `(publicly |freely )?available (on|at|from|via|through) (our|the|its) (website|web site|open data|link|webpage|web page)|published (on|at|in) (our|the) (website|web site|annual report)|section 21\b|reasonably accessible (to you )?by other means|(can|may) be (found|accessed|viewed|downloaded) (on|at|via|from) (our|the) (website|link|following)|\b(records|documents|information|data|minutes|reports?|figures)( you (requested|asked for|are (looking for|seeking))| requested)? (is|are) already (publicly available|public|posted|available online|on (our|the) website)\b|\b(is|are) already (publicly available|public)\b`),
	keyed(r(cRdy, 2.0, "ready.attached_anything", `\b(attached|enclosed)\b[^.!?\n]{0,80}\b(records?|documents?|files?|materials?|e-?mails?|reports?|copies|photos?|videos?|footage|data|spreadsheets?|information|production|release|contracts?|minutes|agendas?|memos?|memoranda|policies|policy|logs?|correspondence|recordings?|audio|images?|citations?|statistics|figures|tables?|lists?|maps?|plans?)\b|\bhere (is|are) (the|your|our)\b`), "attached", "enclosed", "here is", "here are"),
	// A federal release letter accounts for the pages: "172 pages are
	// released in full, 40 pages are withheld in full" (DOJ OIP's form).
	// Pages released are a delivery even when others are withheld.
	keyed(rn(cRdy, 2.0, "ready.pages_released", `\b[1-9][\d,]* (\(\d+\) )?(pages?|records?|documents?|files?|e-?mails?)( of [a-z ]{1,30})? (are |is |were |was |have been |has been |are being |is being |being )?(released|produced|provided|disclosed|enclosed)\b|\b(released|disclosed|produced) (to you )?in (full|their entirety)\b|\b(released|disclosed|produced|provided)\b[^.]{0,40}\bin (its|their) entirety\b`), "released", "produced", "provided", "disclosed", "enclosed"),
	// Records released, uploaded or posted: the delivery itself, often a
	// portal's notice ("A document has been released for your request").
	rn(cRdy, 2.5, "ready.released", `\b(documents?|records?|files?|materials?|information|e-?mails?|responses?)( [\w']+){0,3} (have|has) (now )?been (released|uploaded|posted|produced|provided|made available|mailed|e-?mailed|delivered)\b|\b(i|we) (have |just )?(uploaded|posted|released|produced) (the |your |all |these )?(\w+ )?(records|documents|files|materials|e-?mails|responsive)\b`),
	// Logging in to a portal to view what was released is how the records
	// are delivered, not a request to file there.
	over(r(cRdy, 2.0, "ready.view_in_portal", `\bto (view|access|retrieve|download|see|obtain) (the|your|these|this|those) (released |responsive |requested )?(documents?|records?|files?|response|materials?)\b[^.]{0,20}(log ?in|sign ?in)( to| into| at| on)? (the|our|your) [^.]{0,40}(portal|center|system|account)|\b(log ?in|sign ?in)( to| into| at| on)? (the|our|your) [^.]{0,40}(portal|center|system|account) to (view|access|retrieve|download|obtain) (them|it|the (records|documents|files|response))\b`), "portal.login"),
	// "There is no charge for these records" is about the price of a
	// delivery, not an absence of records.
	over(r(cRdy, 0.5, "ready.no_charge", `there (is|will be) (no|not an?|not any) (charge|fee|cost)s? (for|to) (the |these |this |your |those )?([\w-]+ ){0,2}(records?|documents?|copies|request|information|files?)|(provided|released|sent|produced) (to you )?(free of charge|at no (cost|charge))`), "norecords.there_are_none"),
	// The thing delivered named first: "the complete file is attached",
	// "please find the requested police report attached".
	r(cRdy, 2.0, "ready.named_attached", `\b(on|in) the (enclosed|attached|included|accompanying) (usb( drive)?|cd|dvd|disc|disk|flash drive|thumb drive|hard drive)s?\b|\b(records?|documents?|files?|reports?|e-?mails?|spreadsheets?|information|data|materials?|copies|footage|videos?|photos?|recordings?|minutes|contracts?|logs?)( you requested| requested| you asked for)? (is|are|has been|have been) (now )?(attached|enclosed|included)\b|\bfind (the |your |a )?([\w-]+ ){0,3}(records?|documents?|files?|reports?|e-?mails?|spreadsheets?|information|data|materials?|copies|footage|videos?|photos?|recordings?|minutes|contracts?|logs?) (attached|enclosed)\b|\b(records?|documents?|files?|reports?|copies|minutes|spreadsheets?|footage|videos?|photos?)( you requested| requested)? attached( as requested)?[.;!]|\b(info|information|data)( you requested| requested) attached[.;!]`),
	// A release in full says so: "no information has been withheld",
	// "there were no redactions".
	// "The Council does not hold any other information", "there is no
	// further information to add": the scope is closed after what was
	// given, not found empty.
	over(r(cRdy, 1.0, "ready.nothing_more", `\b(does not|do not|did not) hold any (other|further|additional|more) (information|records|data)\b|\bno (other|further|additional) (information|records|data)\b( (is|was|are|were) held| to (add|provide|give|supply))?`),
		"norecords.not_held", "norecords.does_not_have", "norecords.there_are_none", "norecords.have_none", "norecords.no_responsive", "norecords.none_found"),
	r(cRdy, 1.5, "ready.nothing_withheld", `\b(no|none of the) (information|records|documents|portions|pages|material|content)( [\w-]+){0,2} (has|have|was|were) (been )?(withheld|redacted)\b|\bnothing (was|has been|is|had to be) (withheld|redacted)\b|\b(there (were|are) )?no redactions\b`),
	// "I can confirm that the Council holds the information" (UK FOIA
	// s.1(1)(a)) usually opens the answer.
	r(cRdy, 1.0, "ready.confirmed_held", `\bcan confirm that\b[^.]{0,60}\b(holds?|hold) (the |this |that )?(information|data|records)|\bholds the (information|data) (you (asked for|requested)|requested)\b[.;]`),
	// Plain deliveries in a staff email's words: "Here's the parking
	// citation data", "Your request is granted", "The copies from case
	// 2023-CR-0044 are enclosed", "All three are attached", "The records
	// for your request are ready", "on the CD I dropped in the mail today".
	r(cRdy, 2.0, "ready.plainly_given", `\bhere'?s (the |your )?([\w-]+ ){0,3}(data|records?|documents?|files?|reports?|spreadsheet|list|information|copies|video|footage|minutes)\b|\b(give|giving|grant|granting|granted) (you )?(full|complete) access\b|\bfull access (is |has been |was )?(granted|given)\b|\b(i|we) (attach|enclose|have attached|have enclosed) (a copy of |copies of |herewith )?(the|our|all|both|these) ([\w-]+ ){0,2}(records?|documents?|information|data|files?|e-?mails?|spreadsheets?|minutes|reports?|footage)\b|\b(i|we) (attach|enclose) a spreadsheet\b|\b(your )?request (is|has been) granted\b(?: in full)?|\b(records|documents|files|materials|copies|reports?|videos?|footage|recordings?|minutes|ordinances?|plans|data|spreadsheet|information)\b[^.]{0,50}? (are|is|have been|has been) (attached|enclosed)\b|\b(i|we) (enclose|attach) (a copy of |copies of )?(the |a )?([\w-]+ ){0,3}(minutes|records|documents|information|data|spreadsheet|map|schedule|list|reports?|files?|copies|policy|contracts?)\b|\b(all|both|all three|all two|they|these|those) (\w+ )?(are|have been) (attached|enclosed)\b|\b(records?|documents?|files?|footage|videos?|copies|reports?|recordings?|plans)\b[^.]{0,50}? (is|are) (now )?ready\b|\b(dropped|put|placed) (it |them )?in the (mail|post)\b|\bhas been prepared and (will be|is being|was) (mailed|sent|e-?mailed)\b`),
	except(r(cRdy, 2.0, "ready.available", `\b(available|ready)\b[^.!?\n]{0,40}\b(download|pick ?up|retrieval|viewing|inspection|collection|to collect)\b|\b(can|may) (pick (them|it) up|be picked up|collect (them|it))\b|\b(records?|documents?|files?|footage|videos?|copies|reports?|recordings?)( you requested| requested)? (is|are) (now )?ready\b|\b(can|may) be (accessed|viewed|downloaded|retrieved) (here|at|via|through|using|by)\b|\bdownload\b[^.!?\n]{0,40}\b(files?|records?|documents?)\b`), `\b(once|upon|after|when)\b[^.]{0,60}\b(paid|pay|payment|fee)\b`),
	rn(cRdy, 2.0, "ready.final", `\b(request|response)\b[^.!?\n]{0,40}\b(is|has been|was) (now )?(complete|completed|fulfilled)\b|\bfinal (production|release|installment|instalment|disclosure)\b|\bconstitutes? (the )?completion\b`),

	// NO_RECORDS
	rn(cNone, 3.0, "norecords.none_found", `no (\w+ ){0,2}(records|documents|files|emails|data)( were| was| have been| could be)? (found|located|identified|exist|responsive)|no responsive (records|documents)|no such (records|documents)|no records (exist|were located)`),
	rn(cNone, 2.5, "norecords.have_none", `\b(do|does|did) not have anything\b|\bneither (has|have|had) any (records?|documents?|files?|information)\b|\b(has|have|had) no record(s)? of (any|an?) \w+|\b(do|does|did) not have (a|an|any) ([\w-]+ ){0,3}records? (on file|for)\b|\b(have|has|had|found|located|is|are) nothing (responsive|that is responsive|that would be responsive|on file)\b|\b(we|i|office|department|agency|city|county|town|unit|division|district) (have|has|had) no (\w+ ){0,2}(records|documents|files|information|data|e-?mails|reports|footage|recordings)\b`),
	r(cNone, 3.0, "norecords.unable_to_locate", `(unable|not able|could not|did not|were unable|was unable|cannot|can not) (to )?((locate|find)[^.]{0,30}|identify( (any|the|all|responsive|such|those|these|additional|other|relevant|specific))* )(records|documents|files|responsive|information|e-?mails|data|reports|footage|videos|recordings|contracts?|agreements?|polic(y|ies)|invoices?|minutes|correspondence|communications|logs?)|\b(did not|could not|were unable to|was unable to) (find|locate|identify) any\b|(unable|not able|could not|did not) (to )?(locate|find|identify) (\w+ ){0,3}(records|documents|files) responsive\b`),
	r(cNone, 2.5, "norecords.does_not_have", `(does|do|did) not (have|maintain|possess|keep|retain|hold|create|collect) (any )?(\w+ ){0,3}(records|documents|files|data|information|database|lists?|logs?)( (responsive|that|which|related|regarding|pertaining|containing))?`),
	r(cNone, 2.5, "norecords.there_are_none", `there (are|were|is|was) not (an?|any) (existing |such |other )?(records?|documents?|files?|information|data|reports?|e-?mails?)\b|there (are|were|is|was) no [^.]{0,80}(records|documents?|files|data|emails|reports?|lists|logs?|information|agreements|contracts)`),
	r(cNone, 2.5, "norecords.not_in_possession", `not in (the )?(possession|custody)|(not|no longer) (\w+ )?(in|within) (our|its|the \w+'s) (possession|custody|control)`),
	r(cNone, 2.5, "norecords.search_negative", `search[^.]{0,60}(yielded|produced|returned|revealed|resulted in) (no|none|nothing|zero|0)\b|(found|located|identified) no (\w+ )?(records|documents)|would not have (any )?records|(records|documents) (do|does) not exist`),
	// "Your request is denied because the Department does not have any
	// records": the reason is that none exist.
	over(r(cNone, 3.5, "norecords.denied_as_none", `\b(denied|declined|rejected)\b[^.]{0,30}\b(because|as|since)\b[^.]{0,40}\b(does not|do not|did not) (have|possess|maintain|hold) (any|the|such|these|those) (responsive |requested )?(records|documents|information)\b|\b(denied|declined|rejected)\b[^.]{0,30}\b(because|as|since)\b[^.]{0,40}\bno (responsive )?(records|documents)\b`), "denial.denied"),
	r(cNone, 1.0, "norecords.destroyed", `\b(expunged|purged|destroyed)\b|retention (period|schedule)`),
	r(cNone, 3.0, "norecords.not_held", `(do|does|did) not hold (any |the |this |that |such |some |all )?(information|records|data|details|documents|files|correspondence|contracts|agreements|e-?mails|minutes|reports)|(information|data|records?|documents?|details) (is|are|was|were) not held|\bnot held by (the|this|our)|information not held|(hold|holds|held) no (information|records|data|documents)|no (information|data|records) (is|are|was|were) held`),
	r(cNone, 2.0, "norecords.not_exist", `12\(4\)\(a\)|section 26\b|(do|does|did) not exist|(is|are|was|were) not (recorded|collected|kept|captured|created|compiled|retained)|(we|the (council|department|agency|city)) (do|does|did) not (record|collect|keep|capture|compile|retain|automate|use|track)`),
	r(cNone, 2.5, "norecords.do_not_have_it", `\b(because|as|since|that) (we|i|the (council|department|agency|office|authority|ministry|city|county)) (do|does|did) not (have|hold|possess) ((it|them)\b[^a-z]|(any|this|that|such|these|those) (information|records?|data|documents?))`),
	// The formal letter's name says it ("Response not held.pdf", "FOI
	// 123 not held response").
	r(cNone, 2.5, "norecords.not_held_letter", `\bnot held (response|letter|notice|reply)\b|\b(response|letter|notice|reply) ?[-–]? ?not held\b`),
	r(cNone, 2.5, "norecords.no_responsive", `\bno\b[^.!?\n]{0,40}\b(responsive|records?|documents?|information|e-?mails?|files?|data)\b[^.!?\n]{0,40}\b(found|located|identified|exist|held|available)\b`),

	// CLARIFICATION_REQUEST
	rn(cClar, 2.5, "clarify.clarify", `\bclarif(y|ying|ication)\b`),
	r(cClar, 2.0, "clarify.narrow", `\bnarrow(ing)? (\w+ )?(request|scope|search)|more specific|be specific|\bspecify\b|reasonably describe|additional (details|information) (about|regarding|on|to)`),
	r(cClar, 2.5, "clarify.too_broad", `overly broad|unreasonably burdensome|too broad|reasonable specificity|(reformulate|rephrase|revise|refine|amend) (your|the|this) request|unable to process (it|your request|the request|this request) as (it is |currently )?written|not specific enough|insufficient (detail|description|information)|does not (reasonably )?describe|not a valid request|unduly burdensome`),
	r(cClar, 2.5, "clarify.on_hold", `(held in abeyance|on hold|paused|tolled) (pending|until (we|i) (receive|hear|get)) (a |your |from you|back from you)?(response|clarification|reply)?|(additional|more|further) information is (required|needed)|(we|i) (need|require) (additional|more|further) information|(need|require) (you to|your) (provide|confirm|clarify)`),
	r(cClar, 2.0, "clarify.decision", `(would you like|do you want|do you wish|please (indicate|tell us|let us know) which|which (of|option|records|one))|(reply|respond|let (me|us) know)[^.]{0,30}with (that|your) (decision|choice|answer|preference)|if you would like[^.]{0,120}(reply|respond|let me know|let us know|advise)`),
	r(cClar, 2.0, "clarify.confirm", `((please|kindly|can you|could you|would you|you to|you must|you need to|you will need to|in order to|to) (verify|confirm) (the|your|this|that|above)|(verify|confirm) your)[^.]{0,40}(e-?mail|address|identity|receipt|request|information)|(confirm|advise)[^.]{0,20}(whether|if|that) you (did not |have |had |still )?(receive|received|want|wish|would)|please (advise|confirm)\b`),
	keyed(r(cClar, 1.0, "clarify.please_reply", `please,? (reply|respond|let (me|us) know)|test (e-?mail|message)`), "please", "test e", "test m"),
	r(cClar, 2.0, "clarify.options", `(if you would like|would you like|do you want|if you prefer|if you wish|if you'd like)[^.]{0,60}(formal|instead|new request|narrow|letter|response)|(or|alternatively),? you (may|can|could) (submit|file|send|narrow|revise|resubmit)`),
	r(cClar, 1.0, "clarify.abandon", `no longer interested|administratively close|(assume|consider)[^.]{0,40}(withdrawn|abandoned|no longer)`),
	r(cClar, 2.5, "clarify.could_you", `\b(need|needs|needed) to (confirm|verify|know|clarify) (which|what|whether|exactly)\b[^.?]{0,60}\byou\b|(could|can|would|will) you (please |kindly )?(clarify|confirm|specify|explain|provide|let (us|me) know|tell (us|me)|indicate|advise)|please (clarify|specify|confirm|explain|indicate|let (us|me) know) (which|what|whether|if|the|your|exactly)|before we (can )?(process|proceed|progress|deal with|begin|continue|search|locate|start)|in order (for us )?to (process|progress|locate|identify|proceed)`),
	r(cClar, 2.5, "clarify.identity", `\b(provide|send|give|need|require)( us| me)? (with )?(your|a) (mailing |postal |physical |street |home |e-?mail )?(address|phone number|telephone number)\b|(your )?full (name|legal name)|(not|isn't|is not) a valid request|section 8\b|\b(provide|send|supply|submit|enclose|include|attach|need|require)\b[^.]{0,40}\bproof of (identity|address)|(photo|government[- ]issued) id(entification)?`),
	keyed(r(cClar, 2.0, "clarify.still_wanted", `(do you |if you )?(still )?(wish|want|require|need) (us )?to (proceed|continue|pursue)|whether you (still )?(wish|want|require|need)|(reduce|refine|narrow|limit) (the (scope|time ?frame|date range) of )?your request|(submit|make|send) (a )?(new|narrower|refined|revised) request`), "proceed", "continue", "pursue", "still", "narrow", "refine", "reduce", "limit", "new request", "revised request"),
	// FOIA 2000 s.16: the duty to advise and assist goes with narrowing
	// invitations, but also with refusals and redirections.
	r(cClar, 2.0, "clarify.provide_specifics", `\b(provide|supply|send|give|identify) (us |me )?(with )?(a list of |the |a |any |additional |more |further |specific )?(\w+ ){0,2}(search terms|key ?words|custodians|date range|time ?frame|time period|more details|additional details|further details)\b`),
	// Not knowing which information the requester means is a question
	// about the request, not an absence of records ("we cannot identify
	// the information you are requesting"); "unable to identify the
	// records you requested" (past) is a search that found none.
	over(r(cClar, 2.5, "clarify.cannot_tell_what", `\b(cannot|can not|unable to|not able to|could not|do not|don't) (identify|understand|determine|establish|ascertain|tell) (exactly )?((which|what) ([\w-]+ ){0,3}(you are|you're|you were|you have|you) (requesting|seeking|asking for|looking for|referring to|after|requested|want|mean)|the ([\w-]+ ){0,3}(you are|you're) (requesting|seeking|asking for|looking for|referring to|after))\b`), "norecords.unable_to_locate"),
	r(cClar, 1.0, "clarify.advice_assistance", `advice and assistance`),
	r(cClar, 2.5, "clarify.what_you_need", `what (you are|you're|you were) (looking|asking) for|not sure what you (need|want|mean|are)|(to|must|need to|in order to) perfect (the|your|this) request|(a )?fix is required`),
	r(cClar, 2.0, "clarify.which_meant", `\b(are you (requesting|seeking|asking for|looking for|referring to)|do you (mean|want|need)|did you mean|were you (referring|looking))\b[^.!?\n]{0,120}\?`),
	r(cClar, 0.8, "clarify.question", `\b(would|could|do|did|can|are|is|will) you\b[^.!?\n]{0,120}\?`),

	// WRONG_AGENCY
	rn(cWrng, 3.5, "wrong.not_custodian", `not the (proper |correct |appropriate |official |right |legal )?(custodian|agency|office|department|holder|keeper|entity|records custodian)`),
	r(cWrng, 3.0, "wrong.should_go_to", `(request|it|inquiry|this)( should| must| needs to| would need to)( therefore| instead)?( be)? (go|goes|sent|directed|redirected|submitted|addressed|made|filed|forwarded|routed) (directly )?to`),
	r(cWrng, 2.5, "wrong.maintained_by_other", `(records?|files?|information|documents?) (are|is) (maintained|held|kept|created|generated|owned) by (the|another|a different|a separate)|(are|is) not maintained by (the|our|this)|(another|a different|a separate) (agency|department|office|entity)|\bseparate(ly)? (legal |public |governmental |government |taxing |county |state |independent |registered |nonprofit |private |executive |federal )?(entity|agency|component|district|corporation|charity|department|incorporated|nonprofit)\b`),
	r(cWrng, 2.0, "wrong.contact_other", `(contact|reach out to|direct your request to|submit your request to|send your request to|file your request with|make your request (to|with)) the ([\w.'&-]+ ){0,6}`+agencyWord),
	r(cWrng, 2.5, "wrong.jurisdiction", `(outside|not within|beyond) (the |our |this )(\w+ )?(jurisdiction|purview|authority)|\b(are|is) (under|within) the jurisdiction of (the )?[a-z]|(does|do) not fall (under|within)|\boutside (the )?(city|town|village) limits\b|\b(a|the) (county|state|city|council|federal|provincial|school district|sheriff'?s?( office)?) (thing|matter|issue|function)\b`),
	r(cWrng, 2.5, "wrong.referred", `(forwarded|referred|transferred|redirected|rerouted) (your request |this request |the request |it )?to (the )?([\w.'&-]+ ){0,6}`+agencyWord+`|\btransfer of your (\w+ ){0,2}(request|application)\b|\btransferr(ed|ing)\b[^.]{0,80}\bunder (sub)?(section|s\.?|s) ?(6 ?\(3\)|14\b|8 ?\(1\)|16 ?\(1\))`),
	r(cWrng, 1.0, "wrong.does_not_apply", `(does|do) not apply to (the|this|our) (court|office|agency|entity)`),
	except(r(cWrng, 2.5, "wrong.held_by_other", `(is|are|would be|may be|might be|could be|is likely to be|are likely to be) (held|maintained|kept|managed|operated|issued|run|owned|administered|responsible) by (the |a |an )?(other|([a-z'-]+ ){1,3}(police|council|county|city|department|agency|authority|partnership|office|trust|school|schools|board|boards|commission|providers?|ministry|service)|police|county|state|city|federal|nhs\b)|to whom (you|your request) (may|should|can|could|might)[^.]{0,30}\b(direct|send|address|submit|redirect)|\b(which|who) (is|are) the (competent|responsible|relevant|appropriate) (authority|body|department|ministry|agency)\b|(another|a different|a separate|the relevant|the appropriate) (public )?(body|authority|organisation|organization)|\b(held|maintained|kept|managed|owned|run) by [^.;]{2,50}(, (and )?not|,? rather than| and not) (by )?(this|the|our|[a-z]+ (county|city|borough|district|regional)) (trust|council|authority|department|agency|office|organisation|organization|body|force|board)\b|\b(was|were|would have been) (handled|investigated|worked|answered|responded to) by (the|a|an) ([a-z.'&-]+ ){0,5}(sheriff|sheriff's|patrol|police|troopers?|state|county|district|authority|commission)\b|\b(is|are|would be|were) (held|maintained|kept|administered|issued|recorded|managed) (exclusively |solely |only )?by (the )?([a-z.'&-]+ ){0,4}(court|patrol|executive|registry|corps|bureau|commission|foundation|register|recorder|assessor)\b|, not (by )?(the|our|this|local) ([a-z.'&-]+ ){0,3}(city|town|township|borough|village|county|department|university|council|trust|agency|police|sheriff|fire|school|district)([ ,.;)]|$)`), `\bpayable\b|\bcheques?\b`),
	r(cWrng, 2.5, "wrong.request_for_other_body", `\ba request for (records|information|documents) (from|held by|of|kept by) (another|a different|the ([a-z'-]+ ){0,3}(council|police|county|city|department|agency|authority|office|board|school)|[a-z]+ (council|police|county|city))`),
	keyed(r(cWrng, 2.5, "wrong.not_our_remit", `(is|are|falls?) (not )?(the )?(responsibility|remit|within the remit|a matter) (of|for) (the )?[a-z]|not (a |an )?(council|department|agency|city|county|our) (responsibility|function|matter)|this is not us\b|\bnot us\b|\bnot ours([.,;!)-]|$)|\b(council|department|agency|city|county|authority|office|trust|we) (is|are) not responsible for (\w+ ){0,3}(services?|records|information|data|matters?|functions?|requests?|this|that|these|those)\b|(we are|we're) not (the )?(right|correct|appropriate|responsible) (body|authority|organisation|organization|agency|office)|(request|enquiry|inquiry) (is|was) (for|about) (records|information) (from|of|held by) (another|a different|[a-z]+ (council|police|county|city|agency))`), "responsib", "remit", "matter", "not us", "not ours", "not the right", "not the correct", "not the appropriate", "function", "request is for", "request was for", "enquiry is for", "inquiry is for", "request is about", "request was about"),
	r(cWrng, 2.0, "wrong.make_request_to", `(make|submit|send|direct|address|file|redirect|lodge) (a |an |your |this )?(foi |freedom of information |records |public records |open records )?(request|enquiry|inquiry|application) (directly )?(to|with) (them|that (department|agency|body|authority|council|office|organi[sz]ation)|the ([a-z'-]+ ){1,3}(police|council|county|city|department|agency|authority|office|board|school|schools|district|commission|court|clerk|sheriff|ministry|service|trust)|[a-z&]{3,10}(\.| (at|via|by|on)\b)|([a-z.'&-]+ ){1,3}(epa|district|department|agency|office|authority|council|commission|board|police|county|city|court|clerk|sheriff|trust)('s)?\b|[^.]{1,40}('s (foi|freedom of information|information|records|access) (team|office|unit|officer)|@))|(contact|write to) (them|the ([a-z'-]+ ){1,3}(police|council|partnership|county|city|agency|authority|school|schools)|[a-z]+ (city|county|council|police)|schools?) (directly|at|by|on|via|to request)|\btry (the |their )([a-z.'&-]+ ){0,4}(county|sheriff|sheriff's|state|clerk|council|police|patrol|assessor|recorder|auditor)\b|\btry their ([a-z.'&-]+ ){0,3}(office|department|team|unit)\b|\btheir (public )?(records?|foi|foia|open records|public information|information governance|right to information|rti|oia|lgoima|gipa|atip) (request )?(unit|section|office|line|custodian|officer|email|e-mail|address|contact|division|person|clerk|team|department|desk|coordinator)\b|\b(request|obtain|ask for) (it|this|them|a copy|copies|the (\w+ ){0,2}(report|records?|file|video|recordings?|footage|information|documents?)) from (them|their|that (office|agency|department|body|authority)|the ([a-z.'&-]+ ){0,4}(sheriff|sheriff's|patrol|police|county|state|assessor|recorder|commission|court|authority|district))\b|\b(address|submit|send|make|lodge|file|direct|redirect|forward) (your|the|a|this) ([a-z]+ ){0,3}(request|application|appeal) ([a-z]+ ){0,6}?directly (to|with)\b`),
	r(cWrng, 3.0, "wrong.sent_in_error", `(sent|mailed|addressed|reached|came to|directed) (us |this office |me |our office )?(in error|to the wrong|by mistake)|\b(sent|addressed|directed|delivered) to [^.!?\n]{0,60}\b(in error|by mistake)\b|\bwrong (address|agency|office|department|public body|authority)\b`),

	// PORTAL_REDIRECT
	r(cPort, 3.0, "portal.submit_via", `(submit|file|make|enter|place|resubmit)( a| your| an| the)?( new| open| public)?( \w+)?( records?)? requests? (through|via|using|on|in|at|online through) (the|our|this) [^.]{0,40}(portal|system|website|online|center|link|web ?site)|requests?( for [^.]{0,40}?)? (must|need to|should|can only) be (submitted|made|filed|entered) (online|(through|via|using|on|at|in) (the |our |this |its |an? )?([\w'-]+ ){0,3}(portal|system|website|web ?site|online|form|center|centre|link|nextrequest|govqa|justfoia))|(only|no longer) accept[^.]{0,30}(through|via|portal|online)`),
	// The website the request came through ("the website you used to make
	// your request"), or a website named as a channel not to use ("do not
	// send identification through the website"), sends no request anywhere.
	except(r(cPort, 2.5, "portal.new_request_link", `(link|portal|website)[^.]{0,60}(make|submit|file|create|open)( a| an)?( new)?( \w+)?( records?)? (request|account)|create an account|request (a )?temporary password|login id|user ?name and password`),
		`\b(website|portal|site|platform) (that )?((you|we) )?used to (make|submit|file|send|lodge)\b|\b(do not|don't|should not|need not) (send|upload|submit|post|attach)\b[^.;:,]{0,60}\b(to|through|via|on|using) (the|this|that) (website|portal|site|platform)\b`),
	r(cPort, 2.5, "portal.login", `(log ?in|sign ?in|logging in|register|registering|registered)( to| with| into| at| on)? (the|our|your) [^.]{0,40}(portal|center|system|account)`),
	r(cPort, 1.5, "portal.track", `track (the )?(progress|status) of (your|this|the) request|(public|open) records (portal|center)|records request (portal|center)|online portal`),
	r(cPort, 1.0, "portal.use_link", `(use|utilize|go to|click|visit) the (below |above |following )?(link|portal|url|website)`),
	// A form to fill in, online or attached, is the channel a request must
	// take (an attached form is no record).
	over(keyed(r(cPort, 2.0, "portal.online_form", `(use|complete|fill (in|out)|submit) (the|our|an) (online|web|electronic) ([\w-]+ ){0,4}(form|portal)\b|(use|complete|fill (in|out)|submit) (the|our|an) (attached|enclosed) ([\w-]+ ){0,4}(request|application) form\b|(e-?mails?|requests?) (sent|submitted|made) (to|by|via) [^.]{0,30}\b(are|is|will) not (be )?(considered|accepted|processed|treated as)|(via|through|using) (the|our) (online|web) (form|portal|request system)|(no longer|do not|don't|cannot|can not) accept[^.]{0,40}(e-?mail|requests|submissions)`), "online", "web", "electronic", "accept", "attached", "enclosed", "not be", "not considered", "not accepted", "not processed", "not treated"), "ready.attached_records", "ready.attached_anything"),
	r(cPort, 2.0, "portal.resubmit", `\b(resubmit|re-submit)\b|submit (a |your )?new request (through|via|on|using|at|online|in)\b|submit (it|your request|the request) (again|through|via|on|using)`),

	// German replies (IFG, UIG, VIG and the Länder's transparency and
	// information-access laws, as FragDenStaat requests get them). English
	// text does not hold their words; a German reply's class is only a
	// reviewer's suggestion (analyzeOffline).
	r(cAck, 3.0, "de.ack.receipt", `eingangsbest[äa]e?t?igung|best[äa]e?tig\w* (ihnen )?(hiermit )?den eingang|(ist|sind) (am [\d.]+ )?(bei uns |hier )?eingegangen|(ihre|ihr|ihren) (anfrage|antrag|nachricht|e-mail|schreiben)\w* [^.]{0,40}(erhalten|registriert)`),
	r(cAck, 1.5, "de.ack.processing", `(werden|wird) (ihre|ihr|ihren|die|den) (anfrage|antrag|nachricht|anliegen)\w* [^.]{0,40}bearbeit|in bearbeitung|wird (derzeit |zurzeit )?bearbeitet`),
	r(cAck, 0.5, "de.ack.thanks", `(vielen )?dank f[üu]e?r ihre (\w+ )?(nachricht|anfrage|e-mail|mail|schreiben)`),
	r(cExt, 2.5, "de.ext.delay", `verz[öo]e?ger|fristverl[äa]e?ngerung|frist\w* [^.]{0,30}verl[äa]e?nger|(mehr|weitere|zus[äa]e?tzliche) zeit`),
	r(cDen, 3.5, "de.denial.refused", `nicht entsprochen werden|\babgelehnt\b|\bablehn\w*|\blehne\w* [^.]{0,60}\bab\b|kein (anspruch|informationszugang)|ausschlussgrund|(ist|sind) (vom (informations)?zugang )?ausgeschlossen`),
	r(cNone, 3.0, "de.norecords.not_held", `liegen (uns |hier |der \w+ |dem \w+ )?keine|keine (\w+ ){0,2}(informationen|unterlagen|daten|dokumente|akten|erkenntnisse) vor|nicht bestandteil der (\w+ )?akten|(informationen|unterlagen|daten|dokumente) (sind |liegen )?(hier |bei uns )?nicht (vorhanden|vor)\b`),
	r(cPart, 2.5, "de.partial.in_part", `\bteilweise\b|geschw[äa]e?rzt|schw[äa]e?rzung|im [üu]e?brigen (wird|werden|ist|bleibt)`),
	r(cRdy, 2.0, "de.ready.sent", `[üu]e?bersende\w* (ich |wir )?(ihnen )?(anbei |hiermit )?(die|den|das) (gew[üu]e?nschten|erbetenen|angeforderten)|(anbei|in der anlage) (erhalten|finden) sie|erteilen wir (ihnen )?die (erbetenen|gew[üu]e?nschten) (ausk[üu]e?nfte|informationen)|f[üu]e?gen? (ich|wir) [^.]{0,40}\bbei\b`),
	r(cClar, 2.5, "de.clarify.specify", `pr[äa]e?zisier|konkretisier|n[äa]e?her (zu )?(bezeichnen|erl[äa]e?utern|beschreiben)|(bitten (wir|ich) sie|bitte) [^.]{0,60}(mitzuteilen|anzugeben|zu benennen|zu konkretisieren)`),
	r(cWrng, 3.0, "de.wrong.not_competent", `nicht zust[äa]e?ndig|zust[äa]e?ndige[n]? (beh[öo]e?rde|stelle)|weitergeleitet|(wenden sie sich|richten sie ihre?n? (anfrage|antrag)) (bitte )?(direkt )?an`),
	r(cFee, 2.0, "de.fee.charges", `geb[üu]e?hr|kosten in h[öo]e?he von|kostenpflichtig`),
}

// negationWords and hypotheticalWords, found shortly before a negatable
// cue's match (within 25 and 40 bytes, no ".;:" or line break between),
// cancel it: "no records were withheld", "if any records are withheld", "a
// formal no records found letter".
var (
	negationWords     = []string{"no", "not", "nothing", "none", "never", "without", "neither", "nor", "zero"}
	hypotheticalWords = []string{"if", "whether", "unless", "in the event", "should any", "formal", "to the extent", "may", "might"}
	// appealContext marks appeal-rights boilerplate; evidence inside such a
	// sentence counts for little ("appeal to the head of the public body
	// denying the request").
	appealContext = []string{"appeal", "ogis", "dispute resolution", "public liaison", "judicial review", "internal review", "information commissioner", " ico ", "(ico)", "dissatisfied", "re-use", "complaint"}
)

// negated reports whether the text just before a match (pre, lower-cased)
// negates it or makes it hypothetical.
func negated(pre string) bool {
	if i := strings.LastIndexAny(pre, ".;:\n"); i >= 0 {
		pre = pre[i+1:]
	}
	return phraseWithin(maskNumero(pre), negationWords, 25) || phraseWithin(pre, hypotheticalWords, 40)
}

// maskNumero returns pre with the "no" of a numbered instrument made a
// non-word ("n#"), so that it negates nothing after it: "No <number>/<four
// or more digits>" right after ")" or within 20 bytes of "regulation",
// "directive" or "decision" ("Regulation (EC) No 1049/2001", "Decision No
// 2018/1725"). "no 2019 records", "no 2019/2020 figures" and "no 12/2019
// invoices" stay negations. pre is returned as it is when it holds no such
// number.
func maskNumero(pre string) string {
	var b []byte
	for i := 0; ; {
		j := strings.Index(pre[i:], "no ")
		if j < 0 {
			break
		}
		j += i
		i = j + 3
		if j > 0 && isWordByte(pre[j-1]) {
			continue
		}
		k := i
		for k < len(pre) && pre[k] >= '0' && pre[k] <= '9' {
			k++
		}
		d := k + 1
		for d < len(pre) && pre[d] >= '0' && pre[d] <= '9' {
			d++
		}
		if k == i || k >= len(pre) || pre[k] != '/' || d-k-1 < 4 || !instrumentBefore(pre[:j]) {
			continue
		}
		if b == nil {
			b = []byte(pre)
		}
		b[j+1] = '#'
	}
	if b == nil {
		return pre
	}
	return string(b)
}

// instrumentBefore reports whether head (the text before a "no") ends in
// ")" and a space, or names a regulation, directive or decision within its
// last 20 bytes.
func instrumentBefore(head string) bool {
	if strings.HasSuffix(head, ") ") {
		return true
	}
	tail := head[max(0, len(head)-20):]
	return strings.Contains(tail, "regulation") || strings.Contains(tail, "directive") || strings.Contains(tail, "decision")
}

// conditionalSentence reports whether lower[at:end] is said only on a
// condition: inside an opening "if"/"unless" clause (before its comma), or
// anywhere in a sentence whose condition is the agency's own failure ("If
// we are unable to respond within this timeframe, we will notify you of
// an extension").
func conditionalSentence(lower string, at, end int) bool {
	head := sentenceHeadBefore(lower, at)
	if ownCondition(head) {
		return true
	}
	if strings.HasPrefix(head, "if ") || strings.HasPrefix(head, "unless ") {
		return !strings.Contains(head, ",")
	}
	return false
}

// sentenceHeadBefore returns the sentence of lower that ends at at, up to
// at (at most 300 bytes), without its leading spaces and quotes.
func sentenceHeadBefore(lower string, at int) string {
	start := max(0, at-300)
	if i := strings.LastIndexAny(lower[start:at], ".!?\n"); i >= 0 {
		start += i + 1
	}
	return strings.TrimLeft(lower[start:at], " \t\"'(")
}

// ownCondition reports whether a sentence (its head) hangs on the
// agency's own failure or an event that has not happened: nothing in it is
// said yet, whatever cue it holds ("If we are unable to respond within
// this timeframe, we will notify you of an extension").
func ownCondition(head string) bool {
	for _, w := range ownConditionWords {
		if strings.HasPrefix(head, w) {
			return true
		}
	}
	return false
}

// ownConditionWords open a sentence whose every clause hangs on the
// agency's own failure or an event that has not happened.
var ownConditionWords = []string{"if we ", "if i ", "if the department", "if the council", "if the agency", "if the authority", "in the event"}

// modalInside reports whether a match (lower-cased) holds a modal that
// makes it a possibility, not a statement: "certain information may be
// exempt", "some of the records contain information that must be
// redacted".
func modalInside(match string) bool {
	return phraseWithin(match, modalWords, len(match))
}

var modalWords = []string{"may", "might", "must", "would", "could", "should", "will be"}

// phraseWithin reports whether one of phrases occurs in s as whole words
// ending at most n bytes before the end of s.
func phraseWithin(s string, phrases []string, n int) bool {
	for _, p := range phrases {
		for off := 0; ; {
			i := strings.Index(s[off:], p)
			if i < 0 {
				break
			}
			i += off
			end := i + len(p)
			if (i == 0 || !isWordByte(s[i-1])) && (end == len(s) || !isWordByte(s[end])) && len(s)-end <= n {
				return true
			}
			off = i + 1
		}
	}
	return false
}

// appealDiscount is what a cue matched inside appeal-rights boilerplate
// counts for, as a share of itself ("a written appeal to the head of the
// public body denying the request" denies nothing).
const appealDiscount = 0.3

// appealExempt rules are about appeal rights themselves.
var appealExempt = map[string]bool{"denial.review_upheld": true, "denial.appeal_rights": true, "denial.appeal_missed": true, "denial.court_remedy": true, "denial.closed": true}

// scoreRules runs the cue table over the lower-cased body (ix indexes it).
// A cue's pattern runs only on the sentences that hold one of its literal
// keys (every match contains one), so a reply costs a few sentence scans
// per cue rather than a scan of the whole text; cues without keys scan the
// whole text. A cue counts once, at its first match that is not negated.
// spans are the sentences of the body (sentenceSpans(ix.text)).
func scoreRules(ix *gramIndex, spans [][2]int, body string, questions [][2]int) []evidence {
	return dropOverlaps(scoreRulesOf(rules, &ruleKeys, ix, spans, body, questions))
}

// ruleKeys and titleKeys are the keys of rules and titleRules.
var ruleKeys, titleKeys = newCueKeys(rules), newCueKeys(titleRules)

// scoreRulesOf is scoreRules over the rules of table, overlaps kept; keys
// are table's (newCueKeys).
func scoreRulesOf(table []rule, keys *cueKeys, ix *gramIndex, spans [][2]int, body string, questions [][2]int) []evidence {
	var out []evidence
	lower := ix.text
	sents := newSentences(lower, spans)
	restated := restatedSpans(ix, questions)
	pos, at := keys.offsets(lower)
	var held []int
	whole := [][2]int{{0, len(lower)}}
	for i := range table {
		ru := &table[i]
		var e evidence
		var ok bool
		if keysOf(ru) == nil {
			e, ok = firstCue(ru, ix, body, whole, nil, restated)
		} else {
			held = sents.holding(pos[at[i]:at[i+1]], held[:0])
			e, ok = firstCueIn(ru, ix, body, sents, held, restated)
		}
		if ok {
			out = append(out, e)
		}
	}
	return out
}

// keysOf returns literals one of which every match of ru holds, so that
// it runs only on the sentences holding one: its prefilter keys, else the
// literals its matches start with. It returns nil for a rule that runs on
// the whole text: one without such literals, or one with an anchor.
func keysOf(ru *rule) []string {
	switch {
	case ru.fr.anchored:
		return nil
	case ru.fr.keys != nil:
		return ru.fr.keys
	}
	return ru.fr.prefix
}

// cueKeys are the keys of a table of rules (keysOf), found in a text by
// one scan.
type cueKeys struct {
	scanner *keyScanner
	rule    []int // the rule of each of the scanner's keys
	rules   int   // how many rules the table has
}

func newCueKeys(table []rule) cueKeys {
	var keys []string
	var rule []int
	for i := range table {
		for _, k := range keysOf(&table[i]) {
			keys = append(keys, k)
			rule = append(rule, i)
		}
	}
	return cueKeys{scanner: newKeyScanner(keys), rule: rule, rules: len(table)}
}

// offsets returns every offset in text where a rule's key occurs
// (overlapping occurrences included): rule i's are pos[at[i]:at[i+1]], in
// no particular order.
func (c *cueKeys) offsets(text string) (pos, at []int) {
	buf := keyHitBufs.Get().(*[][2]int32)
	hits := (*buf)[:0] // rule, offset
	at = make([]int, c.rules+1)
	c.scanner.scan(text, func(key, start int) {
		hits = append(hits, [2]int32{int32(c.rule[key]), int32(start)})
		at[c.rule[key]]++
	})
	for i := range c.rules {
		at[i+1] += at[i]
	}
	// at[i] is where rule i's offsets end; placing one moves it back, to
	// where they start once all are placed.
	pos = make([]int, len(hits))
	for _, h := range hits {
		at[h[0]]--
		pos[at[h[0]]] = int(h[1])
	}
	*buf = hits
	keyHitBufs.Put(buf)
	return pos, at
}

// keyHitBufs recycles the occurrences offsets collects.
var keyHitBufs = sync.Pool{New: func() any { return new([][2]int32) }}

// firstCueIn is firstCue over the sentences held (indexes of sents,
// ascending).
func firstCueIn(ru *rule, ix *gramIndex, body string, sents *sentences, held []int, restated [][2]int) (evidence, bool) {
	var buf [][]int
	for _, i := range held {
		sp := sents.spans[i]
		buf = ru.matches(ix, sp, sents.gramsOf(i), buf)
		if e, ok := acceptCue(ru, ix.text, body, sp, buf, restated); ok {
			return e, true
		}
	}
	return evidence{}, false
}

// firstCue returns the first match of ru within spans of the text ix
// indexes that is not negated and does not lie in the requester's own words
// restated by the agency.
func firstCue(ru *rule, ix *gramIndex, body string, spans [][2]int, grams *gramSet, restated [][2]int) (evidence, bool) {
	var buf [][]int
	for _, sp := range spans {
		buf = ru.matches(ix, sp, grams, buf)
		if e, ok := acceptCue(ru, ix.text, body, sp, buf, restated); ok {
			return e, true
		}
	}
	return evidence{}, false
}

// acceptCue returns the first of ms (matches of ru in the span sp) that
// counts.
func acceptCue(ru *rule, lower, body string, sp [2]int, ms [][]int, restated [][2]int) (evidence, bool) {
	for _, m := range ms {
		m0, m1 := m[0]+sp[0], m[1]+sp[0]
		if inSpans(restated, m0) {
			continue
		}
		pre := lower[max(0, m0-50):m0]
		if ru.negatable && (negated(pre) || ru.class == cPart && modalInside(lower[m0:m1]) || conditionalSentence(lower, m0, m1)) ||
			!ru.negatable && ownCondition(sentenceHeadBefore(lower, m0)) {
			continue
		}
		if ru.unless != nil && ru.unless.MatchString(sentenceAround(lower, m0, m1)) {
			continue
		}
		w, boiler := ru.weight, false
		if !appealExempt[ru.name] && firstOf(" "+sentenceAround(lower, m0, m1)+" ", appealContext) != "" {
			w, boiler = round2(w*appealDiscount), true
		}
		return evidence{class: ru.class, weight: w, name: ru.name, snippet: body[m0:m1], start: m0, boilerplate: boiler}, true
	}
	return evidence{}, false
}

// maxSentence bounds the span a cue scans around a key: an OCR'd table or a
// run-on paragraph counts as sentences of at most this many bytes.
const maxSentence = 400

// sentenceSpans splits lower into sentences: a ".", "!", "?" or ";"
// followed by a space, or a line break, ends one — but not the dot of an
// abbreviation ("k.s.a. 45-221", "sec. 12", "mr. smith", "u.s.c. 552").
func sentenceSpans(lower string) [][2]int {
	var out [][2]int
	start := 0
	for i := 0; i < len(lower); i++ {
		c := lower[i]
		end := c == '\n' || (c == '.' || c == '!' || c == '?' || c == ';') && (i+1 == len(lower) || lower[i+1] == ' ' || lower[i+1] == '\n')
		if end && c == '.' && abbreviationBefore(lower, i) {
			end = false
		}
		if end || i-start >= maxSentence && c == ' ' {
			out = append(out, [2]int{start, i + 1})
			start = i + 1
		}
	}
	if start < len(lower) {
		out = append(out, [2]int{start, len(lower)})
	}
	return out
}

// abbreviations end in a dot that does not end a sentence.
var abbreviations = map[string]bool{"sec": true, "no": true, "mr": true, "ms": true, "mrs": true, "dr": true, "st": true,
	"vs": true, "etc": true, "inc": true, "co": true, "dept": true, "gov": true, "stat": true, "ann": true, "rev": true,
	"seq": true, "art": true, "reg": true, "para": true, "ch": true, "ss": true, "jr": true, "sr": true, "approx": true}

// abbreviationBefore reports whether the dot at lower[i] ends an
// abbreviation: a word of one or two letters, a dotted word, or a known
// abbreviation.
func abbreviationBefore(lower string, i int) bool {
	j := i
	for j > 0 && lower[j-1] != ' ' && lower[j-1] != '\n' && lower[j-1] != '(' {
		j--
	}
	w := lower[j:i]
	return len(w) > 0 && len(w) <= 2 && isLetterByte(w[0]) || strings.Contains(w, ".") || abbreviations[w]
}

// sentences are the sentence spans of a text (sentenceSpans) with the byte
// pairs of each, computed when first asked for.
type sentences struct {
	text  string
	spans [][2]int
	grams []gramSet
	done  []bool
}

// newSentences returns the sentences of lower, whose spans are sp
// (sentenceSpans(lower)).
func newSentences(lower string, sp [][2]int) *sentences {
	return &sentences{text: lower, spans: sp, grams: make([]gramSet, len(sp)), done: make([]bool, len(sp))}
}

// gramsOf returns the byte pairs of sentence i.
func (s *sentences) gramsOf(i int) *gramSet {
	if !s.done[i] {
		s.grams[i].fill(s.text[s.spans[i][0]:s.spans[i][1]])
		s.done[i] = true
	}
	return &s.grams[i]
}

// holding appends to out, ascending and without repeats, the indexes of
// the sentences that hold the offsets pos (which it sorts).
func (s *sentences) holding(pos []int, out []int) []int {
	sort.Ints(pos)
	j := 0
	for _, p := range pos {
		for j < len(s.spans) && s.spans[j][1] <= p {
			j++
		}
		if j == len(s.spans) {
			break
		}
		if n := len(out); n == 0 || out[n-1] != j {
			out = append(out, j)
		}
	}
	return out
}

// gramSet is the set of byte pairs of a text, by bigramHash: a literal
// whose first or last pair is missing does not occur in the text.
type gramSet [bigramBuckets / 64]uint64

func (g *gramSet) fill(s string) {
	for i := 0; i+1 < len(s); i++ {
		g.add(s[i], s[i+1])
	}
}

// add puts the pair a, b in the set.
func (g *gramSet) add(a, b byte) {
	h := bigramHash(a, b)
	g[h>>6] |= 1 << (h & 63)
}

// has reports whether the pair a, b may be in the set (false: it is not).
func (g *gramSet) has(a, b byte) bool {
	h := bigramHash(a, b)
	return g[h>>6]&(1<<(h&63)) != 0
}

// gateLit is a gate literal with the hashes of (up to 8 of) its byte
// pairs, first and last included.
type gateLit struct {
	s     string
	pairs [8]uint16
	n     uint8
}

func gateLits(ls []string) []gateLit {
	out := make([]gateLit, len(ls))
	for i, l := range ls {
		g := gateLit{s: l}
		if m := len(l) - 1; m >= 1 {
			k := min(m, len(g.pairs))
			for j := range k {
				at := j * (m - 1) / max(k-1, 1) // spread over the literal, 0 and m-1 included
				g.pairs[j] = uint16(bigramHash(l[at], l[at+1]))
			}
			g.n = uint8(k)
		}
		out[i] = g
	}
	return out
}

// mayHold reports whether lit can occur in the text (false: one of its
// byte pairs does not).
func (g *gramSet) mayHold(lit *gateLit) bool {
	for _, h := range lit.pairs[:lit.n] {
		if g[h>>6]&(1<<(h&63)) == 0 {
			return false
		}
	}
	return true
}

// dropOverlaps keeps, of two cues for the same class whose matches overlap,
// the heavier one: two phrasings of one sentence are one piece of evidence
// ("do not hold the information" is both norecords.does_not_have and
// norecords.not_held). A cue that another overlapping cue overrides is
// dropped too.
func dropOverlaps(ev []evidence) []evidence {
	out := ev[:0]
	for i, e := range ev {
		keep := true
		for j, o := range ev {
			if i == j || o.start < 0 || e.start < 0 {
				continue
			}
			overlap := o.start < e.start+len(e.snippet) && e.start < o.start+len(o.snippet)
			if !overlap {
				continue
			}
			if o.class == e.class && (o.weight > e.weight || o.weight == e.weight && j < i) || overrides(o.name, e.name) {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, e)
		}
	}
	return out
}

func hasEvidence(ev []evidence, prefix string) bool {
	for _, e := range ev {
		if strings.HasPrefix(e.name, prefix) {
			return true
		}
	}
	return false
}

func hasAny(ev []evidence, names ...string) bool {
	for _, e := range ev {
		for _, n := range names {
			if e.name == n {
				return true
			}
		}
	}
	return false
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

// overrides reports whether rule a cancels an overlapping match of rule b.
func overrides(a, b string) bool {
	for i := range rules {
		if rules[i].name == a {
			for _, n := range rules[i].overrides {
				if n == b {
					return true
				}
			}
			return false
		}
	}
	return false
}

// restatedRe finds where an agency restates the request in its reply:
// "your request for information relating to …" up to the end of that
// sentence, and "You asked: …" up to the answer, the question mark or the
// paragraph's end.
var (
	restatedAboutRe = fre(`\b(your|the) (request|application|enquiry|inquiry|e-?mail|foi request|freedom of information request)( for information| for records)? (relating to|concerning|regarding|about|in relation to|in respect of|on the subject of)\b`)
	restatedAskRe   = fre(`\b(you asked|you requested|you have asked|you have requested|your request( was)?|request)\s*:`)
	// restatedFieldRe: a portal's field holding the request ("Request
	// details:", "Records requested:"); its value is one sentence or line.
	restatedFieldRe = fre(`\b(request (details|description|summary|text)|(records?|information|documents?) requested|description of (the )?(records?|information|documents?)( (requested|sought))?)\s*:`)
	restatedEndRe   = regexp.MustCompile(`which we received|received on|\. |\?|\n|(our )?(response|answer):`)
)

// answerLeadRe ends the words that make "your request:" the lead-in to the
// agency's answer ("Please find the council's response to your request:"),
// and requesterVoiceRe starts what reads as the requester's own words
// after it (some agencies paste the request there).
var (
	answerLeadRe     = regexp.MustCompile(`\b(response|responses|reply|answer|answers) to\s*$`)
	requesterVoiceRe = regexp.MustCompile(`^\W*(\d+[.)]\s*)?(i |please |(could|can|would) you\b|copies of|a copy of|how many|the number of|details of)`)
)

// restatesAt reports whether the restatedAskRe match m of lower starts a
// restatement of the request: not the lead-in to the agency's answer,
// unless the requester's words follow it, and a bare "request:" only as a
// heading (after a sentence end or at the start), not in "make a FOIA
// request: <link>".
func restatesAt(lower string, m []int) bool {
	pre := strings.TrimRight(lower[max(0, m[0]-40):m[0]], " ")
	if answerLeadRe.MatchString(pre) {
		return requesterVoiceRe.MatchString(lower[m[1]:min(len(lower), m[1]+80)])
	}
	if strings.HasPrefix(lower[m[0]:], "request") {
		return pre == "" || strings.ContainsAny(pre[len(pre)-1:], ".:;\n")
	}
	return true
}

// restatedSpans returns the byte spans of the lower-cased text ix indexes
// (ascending) that restate the requester's words; cues found there are the
// requester's, not the agency's ("Thank you for your request for information concerning: can
// you confirm …").
func restatedSpans(ix *gramIndex, questions [][2]int) [][2]int {
	lower := ix.text
	var out [][2]int
	add := func(from int, skipSentenceEnd bool) {
		// A heading's words may start on the next line ("Request
		// details:\nAll records of …").
		for from < len(lower) && (lower[from] == ' ' || lower[from] == '\n') {
			from++
		}
		rest := lower[from:min(len(lower), from+600)]
		end := len(rest)
		// The matches restatedEndRe.FindAllStringIndex would list, one at
		// a time (the pattern has no assertions and no empty match, so a
		// search resumed at a match's end finds the next one).
		for off := 0; off < len(rest); {
			m := restatedEndRe.FindStringIndex(rest[off:])
			if m == nil {
				break
			}
			if skipSentenceEnd && rest[off+m[0]:off+m[1]] == ". " {
				off += m[1]
				continue
			}
			end = off + m[0]
			if rest[end] == 'w' || rest[end] == 'r' {
				// "… which we received on 23/12/2023 and your email of
				// …": when the request came in is part of the opening,
				// not an acknowledgment; the span runs to the sentence's
				// end.
				if k := strings.Index(rest[end:], ". "); k >= 0 {
					end += k
				} else {
					end = len(rest)
				}
			}
			break
		}
		out = append(out, [2]int{from, from + end})
	}
	for _, m := range restatedAboutRe.findAllIn(ix, 16) {
		add(m[1], false)
	}
	for _, m := range restatedAskRe.findAllIn(ix, 16) {
		if restatesAt(lower, m) {
			add(m[1], true)
		}
	}
	for _, m := range restatedFieldRe.findAllIn(ix, 16) {
		add(m[1], false)
	}
	// The request's questions, answered in place, are its words too
	// (found on the lines as written: ix.text has single line breaks
	// unwrapped, at the same offsets).
	out = append(out, questions...)
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// inSpans reports whether offset p lies in one of spans.
func inSpans(spans [][2]int, p int) bool {
	for _, s := range spans {
		if p >= s[0] && p < s[1] {
			return true
		}
	}
	return false
}
