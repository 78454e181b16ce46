package analysis

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/foiaflow/foiaflow/workflow"
)

// feeRole is how an amount is used in its sentence.
type feeRole int

const (
	rolePlain     feeRole = iota // an amount with no telling context
	roleRate                     // "$25/hour", "@ $50.00", "x $0.25"
	roleThreshold                // "charges that exceed $40", "fees of $25 or less"
	roleLimit                    // a statutory cost limit: "the appropriate limit of £450", and its hourly basis
	roleOverLimit                // the estimated cost of compliance set against a limit: "it would cost £1,350, which exceeds the appropriate limit" (UK FOIA s.12)
	roleCredit                   // "minus $900 of initial deposit received", "your fee of $30 has been received"
	roleRecord                   // a figure in the records: "£1,182.58 was spent on repairs"
	rolePercentOf                // "(50% of $81,601.83)"
	roleRangeLow                 // "$100" in "between $100 and $250": the upper end counts
	roleDeposit                  // "a deposit of $200"
	roleTotal                    // "total cost $45,000", "estimate is $38.00"
	roleOtherFee                 // the statutory fee of an appeal or complaint: "an appeal must be accompanied by the fee of $25.00"
)

// amount is one money mention in the body.
type amount struct {
	cents    int64
	currency string // ISO 4217 ("USD", "GBP", "EUR", "AUD", …)
	start    int
	role     feeRole
	cue      float64 // strength of the cue that set the role (totals)
	cueName  string  // which cue (totalCues' names)
	text     string
	// rangeHigh: the upper end of a range ("between $200 and $350").
	rangeHigh bool
}

// feeResult is the fee the offline analyzer settled on.
type feeResult struct {
	cents    *int64 // total (or deposit/minimum asked for), integer cents
	currency string // ISO 4217 code of cents ("USD" for "$")
	waived   bool   // the reply says no fee is due ("fees are waived")
	rateOnly bool   // only a rate ("$15 an hour") was stated
	cued     bool   // the amount had a fee cue (total, deposit, rate × hours)
	reported bool   // an amount is a figure the reply reports ("the Council spent £2,345,678")
	reason   string
	all      []money // every amount present, for guards
}

// money is an amount in integer cents and its ISO 4217 currency.
type money struct {
	cents    int64
	currency string
	notDue   bool // stated as a cost limit or threshold, or as already paid
}

var (
	// moneyRe finds amounts with their currency: a symbol or code before
	// ("$", "US$", "R$", "£", "€", "¥", "A$", "GBP ", "Rs. ", "KSh ") or a
	// word after ("dollars", "yen", "Euro"); codeBeforeRe and codeAfterRe
	// the other ISO 4217 codes (moneyMatches puts them in moneyRe's
	// groups). No two neighbouring words share a first letter: the parser
	// would factor "r(?:upees|and)" and leave the prefilter
	// (requiredLiterals) the key "r".
	moneyRe = newFullRe(`(?i)((?:us|a|au|c|nz)?\$|\br\$|£|€|¥|₩|₱|₹|\brs\. ?|\bkshs?\.? ?|(?:usd|gbp|eur|aud|cad|nzd|inr|zar) ?)\s?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?\b|\b(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{2}))?(?:/-)? (dollars|rupees|pounds|rand|euros?|reais|yen|lek)\b`)
	// codeBeforeRe and codeAfterRe: "KES 1,500", "BRL 37.50", "7,300 KRW",
	// "37.50 USD". Upper case only, so that "php" or "top" in prose is no
	// currency; run only where hasCurrencyCode finds a code (moneyRe's
	// literal prefilter cannot take forty codes).
	codeBeforeRe = regexp.MustCompile(`\b(` + otherCodes + `) ?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?\b`)
	codeAfterRe  = regexp.MustCompile(`\b(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{2}))? (USD|GBP|EUR|AUD|CAD|NZD|INR|ZAR|` + otherCodes + `)\b`)
	// waiverRe says no fee is due.
	waiverRe = fre(`(?i)\bno (fees?|charges?|costs?)( will be| are| is)? (due|charged|payable|assessed|required)|\b(fees?|charges?|costs?) (have been|has been|are|is|will be) waived|\bwaived? (the |all |any |your )?(fees?|charges?|costs?)|\bfree of charge\b|\bat no (cost|charge)\b|\bwithout (charge|cost)\b`)
	// rangeSepRe joins the two ends of a range ("$100 - $250", "$100 to $250").
	rangeSepRe = regexp.MustCompile(`^\s*(-|–|to|and|through)\s*$`)
	// bareAmountLine is an OCR'd table cell holding only an amount.
	bareAmountLine = regexp.MustCompile(`^\s*\$?\s?(\d{1,3}(?:,\d{3})*|\d+)\.(\d{2})\s*$`)
	totalLabelLine = regexp.MustCompile(`(?i)^\s*(grand )?total( cost| due| amount| fees?| charges?)?\s*:?\s*(\$?\s?(\d{1,3}(?:,\d{3})*|\d+)\.(\d{2}))?\s*$`)

	ratePost     = regexp.MustCompile(`(?i)^\s*(/|per\b|an\b|a\b|each\b|for each\b|for every\b)\s*((half|quarter)[- ]|\d+ )?(hour|hr|page|minute|min|copy|sheet|set|disc|cd|dvd|item|record|e-?mail|file|unit|photo|image|side|video|recording|clip|drive|plot|map|drawing|certification|certificate)s?\b|^\s*/\s*(hour|hr|page|min)`)
	ratePre      = newFullRe(`(?i)(\brate (of|is|at)|\bhourly rate( of| is)?|@|\bx|×|\bunit price|\b\d+(\.\d+)? ?((half|quarter)[- ])?(hours?|hrs?)\.?( at)?)\s*\(?$`)
	thresholdPre = newFullRe(`(?i)\b(exceed|exceeds|exceeding|exceeded|more than|greater than|over|less than|under|up to|in excess of|above|below|threshold of|at least|maximum of|limit of|cap of|not to exceed)\s*\(?$`)
	// thresholdPost is a bound after an amount ("$25 or less"); it makes
	// the amount a threshold when thresholdCondRe is in its sentence ("no
	// fee is charged if … $25 or less") or thresholdWaivedRe follows ("$15
	// or less are waived"); otherwise "the estimated cost is $350 or less"
	// is the upper estimate of this request.
	thresholdPost     = regexp.MustCompile(`(?i)^\)?\s*or (less|more|fewer|under|below|above|over|greater|lower|higher)\b`)
	thresholdCondRe   = regexp.MustCompile(`(?i)\b(if|when|whenever|unless|where|no (fees?|charges?|costs?)|not (be )?charged|waived?|free|exempt)\b`)
	thresholdWaivedRe = regexp.MustCompile(`(?i)^\)?\s*or \w+,? (are|is|will be|would be|shall be) (waived|free|not charged|exempt)\b`)
	creditPre         = newFullRe(`(?i)\b(minus|less|credit(ed)? (of|for)|refund(ed)?( of)?|already paid|paid|receipt for (the |your )?(\w+ )?(fee|payment|deposit)( of)?|` +
		`(confirm(s|ed|ing)?|acknowledg(e|es|ed|ing)|confirmation of|thank you for) (the )?receipt of( the| your)?( \w+)?( ` + paidThing + `)?( of| for| in the amount of)?|` +
		`(have|has|had) (now |already )?received (the |your )?((\w+ )?` + paidThing + `( of| for| in the amount of)?)?|` +
		`thank you for (the |your )(\w+ )?` + paidThing + `( of| for| in the amount of)?|` +
		`acknowledg(e|es|ed|ing) your (\w+ )?` + paidThing + `( of| for| in the amount of)?|` +
		`\byou (already )?(sent|paid|submitted|enclosed|remitted)( us)?( a| an| the| your)?|` +
		`\b(received|enclosed|included|submitted)\b[^.]{0,60}\b(together with|along with|with (a |the )?fee of)( the| your| a| an)?( (\w+ )?fee of)?)\s*\(?$`)
	creditPost = regexp.MustCompile(`(?i)^\s*(of )?(the |your )?(initial |prior |previous )?(deposit|payment) (received|paid|already)|^\s*(already )?(received|paid)\b|` +
		`^\)?\s*,?\s*((\w+ ){0,2}` + paidThing + ` )?((has|have|had|was|were) (now |already |previously )?(been )?(received|paid|processed|credited|refunded|applied|cashed)|came in|arrived|cleared)\b|` +
		`^\)?\s*((\w+ ){0,2}` + paidThing + ` )?((will|is to|has|have) been |will be |is being )?refunded\b|^\s*(refund|rebate)\b|` +
		`^\)?\s*,?\s*((\w+ ){0,2}` + paidThing + ` )?(that |which )?you (have )?(already |previously )?(paid|sent|submitted|remitted)\b|` +
		`^\)?\s*,?\s*((both|all|each) of )?(which|that) (has|have|had|was|were) (now |already |previously )?(been )?(paid|received|settled)\b`)
	// spentPre and spentPost mark a sum the records report, not a charge:
	// "the council spent £3,400", "£1,182.58 was spent on repairs".
	spentPre  = newFullRe(`(?i)\b(spent|spending of|expenditure (of|was|were|is|totall?ing)|paid out)\s*:?\s*\(?$`)
	spentPost = regexp.MustCompile(`(?i)^\)?\s*(was|were|has been|have been|had been|is being) (spent|paid out|invested|allocated|budgeted)\b|^\)?\s*spent\b`)
	// limitNounRe names a cost limit or threshold: "the appropriate limit"
	// (UK FOIA s.12), "the cost limit", "a threshold"; group 1 is the
	// qualifier that makes the noun a cost limit on its own.
	limitNounRe = newFullRe(`(?i)\b(?:(appropriate|cost|costs|fees?|statutory|prescribed|financial|upper|spending)\W{0,2}\s)?(limit|threshold|ceiling)s?\b`)
	// limitTailRe is how a named cost limit reaches its amount: "of", "is",
	// "which is", "(", and the s.12 pairing with hours ("18 hours or £450").
	limitTailRe = regexp.MustCompile(`(?i)(\b(of|is|at|be|was|which is|being|to|equals?|equivalent to)|[(:,-])\s*` + hoursOr + `\(?\s*$`)
	// limitJoinRe joins a bare "limit"/"threshold" directly to its amount.
	limitJoinRe = regexp.MustCompile(`(?i)^["')]?\s*,?\s*(of|is|at|set at|which is|being|:)?\s*` + hoursOr + `\(?\s*$`)
	// limitGapStopRe between a named limit and an amount says the amount is
	// asked for after all ("exceeds the cost limit, so we will charge a fee
	// of £600").
	limitGapStopRe = regexp.MustCompile(`(?i)\b(charg\w*|pay\w*|remit\w*|deposit|invoice\w*|totals?|totaling|estimat\w*|quote\w*)\b|\b(fee|cost|price)s? (is|are|of|would|will)\b`)
	// limitPost follows an amount that is a limit: "£450 limit", "£600 (the
	// appropriate limit)", "£450 or 18 hours".
	limitPost = regexp.MustCompile(`(?i)^\)?\s*,?\s*(\(\s*)?((which|this) is |being )?(the |a |our )?((appropriate|cost|costs|fees?|statutory|prescribed|financial|upper|spending) )?(limit|threshold|ceiling|cap)\b|^\)?\s*,?\s*(\(\s*)?or (\d+(\.\d+)?|eighteen|twenty-four) (working |staff |officer )?hours?\b`)
	// statutoryMaxRe: the most a law lets a body charge, not what it asks
	// ("the maximum search and retrieval fee payable under the regulations
	// is €500", Ireland's FOI Act 2014 s.27; "the maximum that may be
	// charged is"): a limit.
	statutoryMaxRe = regexp.MustCompile(`(?i)\bmaximum\b[^.]{0,60}\b(under (the |this |that )?(act|regulations?|rules|statute|section|law|order)|(can|may|could) (lawfully |legally )?be (charged|levied|imposed|recovered)|(permitted|allowed|prescribed) (by|under|in))\b[^.$€£]{0,25}$`)
	percentOfPre   = newFullRe(`\d+(\.\d+)?\s?% (of|x|×)?\s*\(?$`)
	// depositShareRe: a deposit (or an advance payment) worked out in
	// words as a share of the estimate just before its amount ("an advance
	// deposit of 50% of the estimated charge, that is $90.00", "an advance
	// payment of 50% of the estimated charge (£320.00)").
	depositShareRe = newFullRe(`(?i)\b(deposit|advance payment|payment in advance|prepayment|part[- ]payment|down payment)\b[^.$]{0,40}?\d+(\.\d+)?\s?(%|percent|per cent)( of (the |this |that |your |our )?(total |estimated |full |overall )?(charges?|costs?|fees?|amount|estimate|total),?( that is| i\.e\.| being| which is| namely)?,?:?\s*\(?\s*| ?\(\s*)$`)
	// percentOfMoneyRe is a share of an amount worked out in the sentence
	// ("10% of £485.00"): the amount that follows is the share, and the
	// total cues before it still reach it ("The fee payable is therefore
	// 10% of £485.00, which is £48.50").
	percentOfMoneyRe = regexp.MustCompile(`\d+(\.\d+)?\s?(%|per ?cent) of (the )?(?:(?:us|a|au|c|nz)?\$|£|€)\s?[\d,]+(\.\d+)?`)
	depositNear      = newFullRe(`(?i)\bdeposit\b` + notAmountOrStop + `{0,40}$`)
	depositPost      = regexp.MustCompile(`(?i)^\s*\)?\s*(deposit|down payment)\b`)
	totalPostRe      = regexp.MustCompile(`(?i)^\s*[-:=]*\s*(total|in total|total cost|total due|is the total|altogether|all told|in all)\b`)
	hoursQtyRe       = regexp.MustCompile(`(?i)\b(\d+(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)(?: \(\d+\))? (?:additional |billable |estimated |more )?(?:hours?|hrs?)\b`)
	numberWords      = map[string]float64{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
	hourlyPostRe     = regexp.MustCompile(`(?i)^\s*(/\s*|per |an |a )(hour|hr)\b`)
	pageQtyRe        = regexp.MustCompile(`(?i)\b(\d{1,3}(?:,\d{3})+|\d+)(?: \(\d+\))? (?:additional |responsive |estimated )?(?:pages?|copies|sheets|images)\b`)
	perPagePostRe    = regexp.MustCompile(`(?i)^\s*(/\s*|per |a |each )(page|copy|sheet|image)\b`)
	pageAtPreRe      = regexp.MustCompile(`(?i)(pages?|copies|sheets|images)\.?\s*(\(?(at|@|x|×)\s*)?$`)
	hourAtPreRe      = regexp.MustCompile(`(?i)(hours?|hrs?)\.?\s*(\(?(at|@|x|×)\s*)?$`)
	sentenceStopR    = newFullRe(`[.;!?]\s|\n\s*\n`)
)

// conditionalTailRe: the amount's sentence so far puts the payment ahead
// ("Once you have paid the $45.00 fee", "until it is submitted together
// with the $5 fee"): not paid yet, unless it is to be refunded.
var conditionalTailRe = regexp.MustCompile(`\b(once|when|until|unless|if|after|upon|before)\b`)

// refundRe: money to be refunded is not asked for, whatever the condition
// ("If you withdraw your application we will arrange a $30 refund").
var refundRe = regexp.MustCompile(`(?i)\brefund`)

// scalePost follows an amount written with a scale word ("$2.3 million",
// "£1.2bn", "Rs. 2.75 crore"): a sum in the records, never a charge for them.
var scalePost = regexp.MustCompile(`(?i)^(\.\d+)?\s*(million|billion|trillion|thousand|bn|mn|m|k|lakhs?|crores?)\b`)

// appealFeePre ends the sentence before an amount that is the fee of an
// appeal or a complaint to an oversight body, stated in the appeal-rights
// paragraph ("An appeal must be made within 30 days … and be accompanied
// by the appropriate fee of $25.00", Ontario MFIPPA s.39): not this
// request's fee.
var appealFeePre = regexp.MustCompile(`\b(appeal|complaint)s?\b[^.]{0,100}\b(accompanied by|along with|requires?) (the |a |an )?(appropriate |prescribed |applicable |required |non-refundable )?(appeal |application |filing |lodg(e)?ment )?fee( of)?\s*\(?$|\b(internal review|appeal) fee( of)?\s*\(?$`)

// appealFeePost: a fee named after its amount as an internal review's or
// an appeal's ("A fee of €75 applies to internal reviews", Ireland's FOI
// Act 2014 s.27; "$25, payable on lodging an appeal"): not this request's.
var appealFeePost = regexp.MustCompile(`(?i)^\)?\s*,?\s*(applies|is payable|is charged|is required|must accompany|is due|payable)? ?(to|for|on|with|when) (an |any |the |each |a |lodging an |making an |applying for an )?(internal reviews?|appeals?|applications? for (an )?(internal )?review)\b`)

// payAskRe: the reply asks the requester to pay, or to agree to pay, before
// it goes on.
var payAskRe = newFullRe(`(?i)\bplease (pay|remit|send (a |the |your )?(check|cheque|payment|money order)|submit (your |the )?payment|make (your |the )?(check|cheque|payment))|\b(agree|confirm|confirming|indicate)[^.]{0,40}\b(pay|accept (the|this|these|our) (charges?|fees?|costs?))\b|\b(when|once|until|after|upon receipt of) (we (have received|receive|get) )?(your |the )?payment\b|\bpayment (is|has been) received\b|\bmust (pay|be paid)\b|\bpayment (can|may|should|must) be made\b|\b(cheques?|checks?|money orders?) ((should|must|can|may|are to|is to) )?(be )?(made )?payable to\b|\b(require|requires|required)\b[^.]{0,30}\b(deposit|payment)\b`)

// firstPartRe: the words before a waiver phrase in its sentence name a
// first part of the work or the copies ("the first two hours of search
// time are", "the initial 100 pages"); remainderRe: the text after it
// charges for the rest ("the remaining time is charged at", "additional
// pages cost"). Both together make the waiver an allowance; so does
// allowanceRe alone, a quantity the requester is entitled to, and
// sizeFreeRe with a charge for more in the same sentence.
var (
	firstPartRe = regexp.MustCompile(`\b(first|initial) (\d[\d,]*|one|two|three|four|five|ten|twenty|fifty|hundred)? ?([a-z/&-]+ ){0,4}?(hours?|hrs?|pages?|copies|sheets|minutes|images|cds?|dvds?|discs?)\b`)
	allowanceRe = regexp.MustCompile(`\b(entitled to|receives?|allowance of|(are|is) (provided|given))\b[^.]{0,60}\b(\d[\d,]*|one|two|three|four|five|ten|twenty|fifty|hundred) (hours?|hrs?|pages?|minutes)\b`)
	// sizeFreeRe and chargedRe: a size under which copies are free ("fewer
	// than 20 pages are supplied free of charge") is an allowance when the
	// same sentence charges for more ("while larger documents are charged
	// at EUR 0.10 per page"); alone it is a waiver.
	sizeFreeRe  = regexp.MustCompile(`\b(fewer|less|under) (than )?(\d[\d,]*|one|two|three|four|five|ten|twenty|fifty|hundred) (hours?|hrs?|pages?|minutes)\b`)
	chargedRe   = regexp.MustCompile(`\b(charged|chargeable|payable)\b`)
	remainderRe = regexp.MustCompile(`\b(remaining|remainder|the rest|thereafter|additional|beyond|each further|further (hours?|pages?|copies))\b`)
)

// waived reports whether the reply (lower) says no fee is due. A waiver of
// a part or an alternative in a reply that asks for payment ("the first
// hour of staff time is free of charge", "we can email them free of
// charge", "a CD at no charge") leaves the quote standing, as does a first
// part given free with the rest charged (firstPartRe, remainderRe) and a
// waiver said only on a condition ("if you would prefer …"). ix, when not
// nil, indexes lower.
func waived(lower string, ix *gramIndex) bool {
	ms := waiverRe.findAllOpt(lower, ix, -1)
	if len(ms) == 0 {
		return false
	}
	if payAskRe.matchString(lower, lower) {
		return false
	}
	for _, m := range ms {
		// A first part given free, the rest charged ("the first hour is
		// free of charge and the remaining time is charged at …") is an
		// allowance, not a waiver.
		tail := sentenceTail(lower[:m[0]])
		if firstPartRe.MatchString(tail) && remainderRe.MatchString(lower[m[1]:min(len(lower), m[1]+200)]) {
			continue
		}
		// So is a requester's allowance of so many hours or pages ("you
		// are entitled to two hours of search and 100 pages of duplication
		// without charge", 5 U.S.C. 552(a)(4)(A)(iv)).
		if allowanceRe.MatchString(tail) || sizeFreeRe.MatchString(tail) && chargedRe.MatchString(sentenceHead(lower[m[1]:])) {
			continue
		}
		sent := sentenceAround(lower, m[0], m[1])
		// Free inspection or viewing is another way to the records, not a
		// waiver of the copies' fee.
		if conditionalSentence(lower, m[0], m[1]) || strings.Contains(sent, "if you") || strings.Contains(sent, "available") || strings.Contains(sent, "inspect") || strings.Contains(sent, "alternative") {
			continue
		}
		return true
	}
	return false
}

// sentenceTail returns the part of pre (text before an amount) after its
// last sentence stop: the amount's own sentence so far.
func sentenceTail(pre string) string {
	if locs := sentenceStopR.allIn(pre, -1); len(locs) > 0 {
		return pre[locs[len(locs)-1][1]:]
	}
	return pre
}

// sentenceHead returns the part of post (text after an amount) before its
// first sentence stop: the rest of the amount's sentence.
func sentenceHead(post string) string {
	if loc := sentenceStopR.allIn(post, 1); loc != nil {
		return post[:loc[0][0]]
	}
	return post
}

const (
	// paidThing is what a requester pays: a fee, a payment, a cheque.
	paidThing = `(fee|payment|deposit|cheque|check|remittance)`
	// hoursOr is UK FOIA's way of stating the appropriate limit as hours of
	// staff time or money ("18 hours or £450"), optional.
	hoursOr = `(\(?\d+(\.\d+)? (working |staff |officer )?hours?( of [a-z ]{0,25}?)?,? or\s*)?`
)

// boundIsThreshold reports whether an amount followed by a bound ("$25 or
// less") states a fee policy rather than this request's estimate.
func boundIsThreshold(pre, post string) bool {
	if !thresholdPost.MatchString(post) {
		return false
	}
	if thresholdWaivedRe.MatchString(post) {
		return true
	}
	pre = sentenceTail(pre)
	return thresholdCondRe.MatchString(pre)
}

// limitBefore reports whether the text before an amount (whitespace
// collapsed) introduces it as a cost limit rather than a charge: "exceeds the
// cost limit of 18 hours or £450", "the "appropriate limit" specified in
// section 12, which is £450", "the threshold of $25". A qualified limit ("the
// appropriate limit", "the cost limit") may be a few words from its amount;
// a bare "limit" must be joined to it directly ("limit of", "threshold is").
func limitBefore(pre string) bool {
	pre = sentenceTail(pre)
	ms := limitNounRe.allIn(pre, -1)
	if len(ms) == 0 {
		return false
	}
	m := ms[len(ms)-1]
	gap := pre[m[1]:]
	if m[2] < 0 {
		return limitJoinRe.MatchString(gap)
	}
	return len(gap) <= 70 && !limitGapStopRe.MatchString(gap) && limitTailRe.MatchString(gap)
}

// overLimitRe: the sentence sets a cost against a statutory cost limit it
// exceeds ("exceeds the appropriate limit", "above the £450.00 limit").
var overLimitRe = regexp.MustCompile(`(?i)\b(exceed\w*|above|over|more than|beyond|in excess of|greater than|outside)\b(?:[^.;]|\.\d){0,40}?(\b(appropriate|cost|costs|statutory|prescribed|fees?|financial|upper) (limit|ceiling)|[£$€]\s?\d[\d,]*(\.\d+)? (cost )?(limit|ceiling))\b`)

// ownLimitRe: the limit is the requester's own ("the $50 limit stated in
// your request"): a cost over it is a quote to approve.
var ownLimitRe = regexp.MustCompile(`(?i)\b(you|your)\b[^.;]{0,40}\b(set|stated|specified|indicated|agreed|authori[sz]ed|gave|provided|willing|mentioned|noted|quoted)\b|\b(set|stated|specified|indicated|given|provided|agreed to) (in|by|with) (you|your)\b|\byour (limit|maximum|cap)\b`)

// askedRe: the requester is asked to pay.
var askedRe = regexp.MustCompile(`(?i)\b(pay\w*|remit\w*|charg\w*|deposit|invoice\w*|fee of)\b`)

// overLimit reports whether the amount body[start:end] is the estimated
// cost of compliance in a refusal on cost (UK FOIA s.12, and state cost
// ceilings): its sentence says the cost exceeds a limit, and nothing
// between the sentence's start and the amount asks for payment ("…so we
// can only proceed if you pay the fee of £700" stays a fee). lower is
// asciiLower(body).
func overLimit(body, lower string, start, end int) bool {
	lo, hi := max(0, start-200), min(len(body), end+200)
	if w := lower[lo:hi]; !strings.Contains(w, "limit") && !strings.Contains(w, "ceiling") {
		return false
	}
	pre := body[lo:start]
	pre = sentenceTail(pre)
	post := body[end:hi]
	post = sentenceHead(post)
	s := pre + " " + post
	return !askedRe.MatchString(pre) && overLimitRe.MatchString(s) && !ownLimitRe.MatchString(s)
}

// The text a cue reads before an amount stops at the amount before it:
// notAmount is any character but a currency symbol, or the mark
// stopAtAmounts puts where an amount's currency is written in letters;
// notAmountOrStop also stops at a full stop.
const (
	notAmount       = `[^$£€¥₹₩₱¤]`
	notAmountOrStop = `[^$£€¥₹₩₱¤.]`
)

// stopAtAmounts returns body with the currency of every amount in ms
// (moneyMatches) that is written without a symbol of notAmount ("KES
// 1,500.00", "7,300 KRW", "40 dollars", "Rs. 148") replaced by "¤" and
// spaces to the same length, so that offsets hold and a cue window stops
// at such an amount as it stops at "$"; body itself when there is none.
func stopAtAmounts(body string, ms [][]int) string {
	var b []byte
	for _, m := range ms {
		lo, hi := m[2], m[3] // currency before the amount
		if m[4] < 0 {
			lo, hi = m[12], m[13] // currency after it
		}
		cur := strings.TrimSpace(body[lo:hi])
		if len(cur) < 2 || strings.ContainsAny(cur, "$£€¥₹₩₱") {
			continue
		}
		if b == nil {
			b = []byte(body)
		}
		lo += strings.Index(body[lo:hi], cur)
		copy(b[lo:], "¤")
		for i := lo + len("¤"); i < lo+len(cur); i++ {
			b[i] = ' '
		}
	}
	if b == nil {
		return body
	}
	return string(b)
}

// totalCues rank the context before an amount; the strongest match wins.
var totalCues = []struct {
	re   fullRe
	cue  float64
	name string
}{
	// A revised estimate supersedes the first one ("the revised charge is
	// £180.00", "we have reduced the fee to $390").
	{newFullRe(`(?i)\b((revised|reduced|amended|adjusted|updated|new) (fee|cost|charge|estimate|total)s?( estimate)?|(reduced|revised|lowered) (the |your |this |our )?(estimated )?(fee|cost|charge|estimate)s?( estimate)? to)\b` + notAmountOrStop + `{0,30}$`), 6, "revised"},
	{newFullRe(`(?i)\b(total (estimated |revised |adjusted |final )?(cost|fee|charge|amount|due|price)s?( estimate)?|grand total|amount due|balance (due|owed|of))\b` + notAmount + `{0,80}$`), 5, "total"},
	{newFullRe(`(?i)\btotal\b` + notAmount + `{0,25}$`), 4, "total"},
	// What the requester is asked to remit is what must be paid to proceed,
	// even after a larger estimate ("a total cost of $76.00; one hour has
	// been waived; please remit $38.00").
	{newFullRe(`(?i)\b(remit|in the amount of|payment of|submit payment|pay the amount of|amount due|(fee|amount|sum|charge)s? (now )?(payable|due)|\b(a|an|your|the) (check|cheque|money order|postal order|bank draft)( or (a |an )?(check|cheque|money order|postal order|bank draft))? (for|of|in))\b` + notAmount + `{0,30}$`), 5.5, "amount asked"},
	// A fees notice (FOIA 2000 s.9, FOISA s.9) names the fee it asks for
	// ("we are issuing you with a fees notice for £46.00").
	{newFullRe(`(?i)\bfees? notice\b` + notAmountOrStop + `{0,60}$`), 5.5, "amount asked"},
	{newFullRe(`(?i)\b(minimum payment|prepay(ment)?( of)?|pre-pay|receipt of|amount of|sum of|charge of|fee of|cost of|invoice (amount|total)?|resulting in|comes? to|for a total of)\b` + notAmount + `{0,30}$`), 4, "amount"},
	// A sum worked out ("18 hours at €20 per hour amounts to €360"); only
	// right before the amount, so "fees amount to less than our $10.00
	// minimum" gives no cue.
	{newFullRe(`(?i)\bamounts? to\s*$`), 4, "amount"},
	{newFullRe(`(?i)\b(estimat\w*|fees?|costs?|charges?|price|quote)\b` + notAmountOrStop + `{0,100}\b(is|are|of|at|will be|would be|to be|totals?|totaling|amounts? to)( therefore| now| approximately| about| roughly| estimated at| between)?\s*:?\s*$`), 4, "estimate"},
	{newFullRe(`(?i)(\b(fee|cost|charge|price|estimate)s?|\best\.)\s*:?\s*$`), 3.5, "label"},
	// The result of a worked charge: "8 hours x $38 = $608".
	{newFullRe(`=\s*$`), 3, "computed"},
}

// digitSeps drops the separators of an amount's digits ("1,200", "1 200").
var digitSeps = strings.NewReplacer(",", "", " ", "")

func parseCents(whole, frac string) (int64, bool) {
	w, err := strconv.ParseInt(digitSeps.Replace(whole), 10, 64)
	if err != nil || w > 1e11 {
		return 0, false
	}
	c := w * 100
	switch len(frac) {
	case 1:
		f, _ := strconv.ParseInt(frac, 10, 64)
		c += f * 10
	case 2:
		f, _ := strconv.ParseInt(frac, 10, 64)
		c += f
	}
	return c, true
}

// before returns up to n bytes of s before i with whitespace runs and the
// dot leaders of a statement's lines ("ESTIMATED TOTAL ........ $ 66.20")
// collapsed.
func before(s string, i, n int) string {
	lo := max(0, i-n)
	w := s[lo:i]
	if strings.Contains(w, "...") {
		w = dotLeaderRe.ReplaceAllString(w, " ")
	}
	return strings.Join(strings.Fields(w), " ") + trailingSpace(w)
}

var dotLeaderRe = regexp.MustCompile(`\.{3,}`)

func trailingSpace(s string) string {
	if s != "" && (s[len(s)-1] == ' ' || s[len(s)-1] == '\n') {
		return " "
	}
	return ""
}

func after(s string, i, n int) string {
	return strings.Join(strings.Fields(s[i:min(len(s), i+n)]), " ")
}

// findAmounts lists every money mention in body with its role.
func findAmounts(body string) []amount { return findAmountsLower(body, asciiLower(body), nil) }

// findAmountsLower is findAmounts; lower is asciiLower(body), and ix, when
// not nil, indexes lower.
func findAmountsLower(body, lower string, ix *gramIndex) []amount {
	var out []amount
	dollar := "" // the reply's "$" (dollarCurrency), read at the first one
	ms := moneyMatches(body, lower, ix)
	stopped := stopAtAmounts(body, ms)
	for _, m := range ms {
		var whole, frac, cur string
		if m[4] >= 0 {
			cur = body[m[2]:m[3]]
			whole = body[m[4]:m[5]]
			if m[6] >= 0 {
				frac = body[m[6]:m[7]]
			}
		} else {
			whole = body[m[8]:m[9]]
			if m[10] >= 0 {
				frac = body[m[10]:m[11]]
			}
			cur = body[m[12]:m[13]]
		}
		c, ok := parseCents(whole, frac)
		if !ok {
			continue
		}
		code := currencyCode(cur)
		if code == "" {
			if dollar == "" {
				dollar = dollarCurrency(lower)
			}
			code = dollar
		}
		a := amount{cents: c, currency: code, start: m[0], text: body[m[0]:m[1]]}
		pre := before(body, m[0], 100)
		// The patterns read before an amount end at it ($): fullRe runs
		// them only where their keys are, looked for in preLower. The
		// cues' windows (cuePre) stop at the amount before this one.
		preLower := asciiLower(pre)
		cuePre, cuePreLower := pre, preLower
		if stopped != body {
			cuePre = before(stopped, m[0], 100)
			cuePreLower = asciiLower(cuePre)
		}
		trimmed, trimmedLower := strings.TrimRight(pre, " "), strings.TrimRight(preLower, " ")
		end := m[1]
		if strings.HasPrefix(body[end:], "/-") { // "Rs. 148/-": whole rupees
			end += 2
		}
		post := after(body, end, 40)
		switch {
		case scalePost.MatchString(post):
			a.role = roleRecord // "$2.3 million": a sum of the records, not a charge
		case ratePost.MatchString(post) || ratePre.matchString(trimmed, trimmedLower):
			a.role = roleRate
		case limitPost.MatchString(post) || limitBefore(pre) || statutoryMaxRe.MatchString(sentenceTail(preLower)):
			a.role = roleLimit
		case overLimit(body, lower, m[0], m[1]):
			a.role = roleOverLimit
		case thresholdPre.matchString(trimmed, trimmedLower) || boundIsThreshold(pre, post):
			a.role = roleThreshold
		case (creditPre.matchString(trimmed, trimmedLower) || creditPost.MatchString(post)) &&
			(!conditionalTailRe.MatchString(sentenceTail(preLower)) || refundRe.MatchString(post)):
			a.role = roleCredit
		case appealFeePre.MatchString(sentenceTail(asciiLower(before(body, m[0], 200)))) || appealFeePost.MatchString(post):
			a.role = roleOtherFee
		case spentPre.matchString(trimmed, trimmedLower) || spentPost.MatchString(post):
			a.role = roleRecord
		case depositShareRe.matchString(cuePre, cuePreLower):
			// "a deposit of 50% (£180.00)": the share named is the deposit
			a.role = roleDeposit
		case percentOfPre.matchString(trimmed, trimmedLower):
			a.role = rolePercentOf
		case depositNear.matchString(cuePre, cuePreLower) || labelAfter(body, end, after(paragraphRest(body, end), 0, 40), depositPost) ||
			depositShareRe.matchString(cuePre, cuePreLower):
			a.role = roleDeposit
		default:
			a.role = rolePlain
			if totalAfter(body, end, post) {
				a.role, a.cue = roleTotal, 5
				break
			}
			cuePre := strings.TrimRight(percentOfMoneyRe.ReplaceAllString(cuePre, "%"), " ")
			cueLower := asciiLower(cuePre)
			for _, tc := range totalCues {
				if tc.re.matchString(cuePre, cueLower) {
					a.role, a.cue, a.cueName = roleTotal, tc.cue, tc.name
					break
				}
			}
		}
		out = append(out, a)
	}
	markRanges(body, out)
	markLimitRates(body, out)
	markUnitPrices(body, out)
	markShares(body, out)
	if scottish(lower) {
		markFOISAShares(out)
	}
	out = append(out, tableTotals(body)...)
	return out
}

// markShares: a worked charge whose line takes a percentage of a sum in
// brackets is the share asked for ("10% x (£460.00 - £100.00) = £36.00",
// FOISA's fees: 10% of the cost between £100 and £600), not a step of an
// itemised statement.
func markShares(body string, amts []amount) {
	for i := range amts {
		if amts[i].cueName != "computed" {
			continue
		}
		lineStart := strings.LastIndexByte(body[:amts[i].start], '\n') + 1
		if !shareOfRe.MatchString(body[lineStart:amts[i].start]) {
			continue
		}
		for _, b := range amts[:i] {
			if b.start >= lineStart {
				amts[i].cue, amts[i].cueName = 5.5, "share"
				break
			}
		}
	}
}

var shareOfRe = regexp.MustCompile(`\d\s?%\s*(x|×|\*|of)\s*\(`)

// FOISA's fee (the Freedom of Information (Fees for Required Disclosure)
// (Scotland) Regulations 2004, reg. 4): nothing for the first £100 of the
// projected cost, then 10 % of the cost between £100 and £600, so at most
// £50. In integer pence.
const (
	foisaFree    = 100_00
	foisaCeiling = 600_00
)

// markFOISAShares: in a Scottish reply, a pound amount that is 10 % of
// another's excess over £100 (a projected cost between £100 and £600) is
// the fee FOISA lets the authority charge, whatever words sit beside it
// ("£420.00 - £100.00 = £320.00 / 10% of £320.00 = £32.00", "The fee
// payable is therefore £32.00 (10% of £320)", "£480 - £100 = £380 x 10% =
// £38.00"); the cost it is worked from, a total in its own right, is not
// what the requester pays. Found by the arithmetic, not by the wording.
func markFOISAShares(amts []amount) {
	for i := range amts {
		f := &amts[i]
		if f.currency != "GBP" || f.cents <= 0 || f.cents > (foisaCeiling-foisaFree)/10 || !feeLike(f.role) {
			continue
		}
		for _, c := range amts {
			excess := c.cents - foisaFree
			// The ceiling itself, or a range's upper end, is the rule's
			// statement ("between £100 and £600 … at most £50"), not a cost.
			if c.currency == "GBP" && c.cents > foisaFree && c.cents < foisaCeiling && !c.rangeHigh && feeLike(c.role) && abs64(excess-10*f.cents) < 10 {
				f.role, f.cue, f.cueName = roleTotal, 9, "foisa share" // outranks the cost it is worked from, however that cost is stated
				break
			}
		}
	}
}

// feeLike: a role an amount asked for can have (not a rate, limit,
// threshold, credit or figure of the records).
func feeLike(r feeRole) bool {
	return r == rolePlain || r == roleTotal || r == rolePercentOf || r == roleDeposit
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// scottishMarkers name Scotland's FOI law (FOISA 2002), its fees
// regulations or its Commissioner; lower-cased.
var scottishMarkers = []string{"(scotland)", "foisa", "scottish information commissioner"}

// scottish reports whether a reply (lower, lower-cased) is under FOISA by
// scottishMarkers, so that its fee is read by FOISA's fee rule.
func scottish(lower string) bool { return firstOf(lower, scottishMarkers) != "" }

// paragraphRest is body from end to the end of its paragraph (a blank
// line): "$434.30\n\nDEPOSIT REQUIRED: …" is a total above a heading, not
// a deposit.
func paragraphRest(body string, end int) string {
	rest := body[end:]
	if i := strings.Index(rest, "\n\n"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// totalAfter reports whether the amount ending at end in body is labelled
// a total by what follows it (post, whitespace collapsed): "$30.00 total",
// "30.00\nTotal Cost:" (labelAfter).
func totalAfter(body string, end int, post string) bool {
	return labelAfter(body, end, post, totalPostRe)
}

// labelAfter reports whether the amount ending at end in body is labelled
// by what follows it (post, whitespace collapsed), a match of label: on
// the amount's own line, or on a later one that holds no figure of its
// own. A "Total: £48.00" line under an itemised line labels its own
// amount, not the item's ("Postage: £6.80\nTotal: £48.00"), and so does
// "DEPOSIT REQUIRED (50%): $268.61" under "ESTIMATED TOTAL: $537.22"; a
// label wrapped onto the next line ("please remit the $75.00\ndeposit by
// check") is the amount's.
func labelAfter(body string, end int, post string, label *regexp.Regexp) bool {
	if !label.MatchString(post) {
		return false
	}
	rest := body[end:]
	nl := strings.IndexByte(rest, '\n')
	if nl < 0 || strings.TrimSpace(rest[:nl]) != "" {
		return true // the label is on the amount's own line
	}
	below := strings.TrimLeft(rest[nl:], " \t\n")
	for {
		line, next, _ := strings.Cut(below, "\n")
		if !ruleLineRe.MatchString(line) || next == "" {
			below = line
			break
		}
		below = strings.TrimLeft(next, " \t\n") // "----------" under a column of sums
	}
	return !strings.ContainsAny(below, "0123456789")
}

// ruleLineRe is a line drawn under a column of sums ("----------",
// "=======").
var ruleLineRe = regexp.MustCompile(`^\s*[-=_]{3,}\s*$`)

// markRanges reads "$100 - $250" and "between $100 and $250" as the upper
// estimate: the lower end is dropped, the upper takes its role.
func markRanges(body string, amts []amount) {
	for i := 0; i+1 < len(amts); i++ {
		a, b := &amts[i], &amts[i+1]
		if a.role == roleRate || b.role == roleRate || !rangeSepRe.MatchString(body[a.start+len(a.text):b.start]) {
			continue
		}
		if b.role == rolePlain || b.role == roleThreshold || b.role == roleLimit {
			b.role, b.cue = a.role, a.cue
		}
		a.role, b.rangeHigh = roleRangeLow, true
	}
}

// markLimitRates reads a rate in the same sentence as a cost limit as the
// limit's basis, not a charge: "the appropriate limit is £450 (18 hours at
// £25 per hour)".
func markLimitRates(body string, amts []amount) {
	for i := range amts {
		if amts[i].role != roleRate {
			continue
		}
		for _, l := range amts {
			if l.role != roleLimit {
				continue
			}
			lo, hi := l.start+len(l.text), amts[i].start
			if lo > hi {
				lo, hi = amts[i].start+len(amts[i].text), l.start
			}
			if lo <= hi && hi-lo <= 200 && !sentenceStopR.matchesIn(body[lo:hi]) {
				amts[i].role = roleLimit
				break
			}
		}
	}
}

// otherCodes are ISO 4217 codes beyond the ones moneyRe spells out, as
// public bodies writing in English put them before or after an amount
// ("KES 1,500", "BRL 37.50", "7,300 KRW"); a code that is also an English
// word (ALL, TOP, CUP, PEN, TRY, MAD, SOS, GEL) is left out.
const otherCodes = `KES|UGX|TZS|NGN|GHS|PHP|KRW|JPY|CNY|HKD|TWD|SGD|MYR|IDR|THB|PKR|BDT|LKR|BRL|MXN|ARS|CLP|COP|UYU|CHF|SEK|NOK|DKK|ISK|PLN|CZK|HUF|RON|BGN|RSD|MKD|BAM|UAH|MDL|ILS`

// currencyCodes are the codes codeBeforeRe and codeAfterRe read, for
// hasCurrencyCode.
var currencyCodes = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range strings.Split("USD|GBP|EUR|AUD|CAD|NZD|INR|ZAR|"+otherCodes, "|") {
		m[c] = true
	}
	return m
}()

// hasCurrencyCode reports whether s holds a word of three upper-case
// letters that is one of currencyCodes (one pass, no regexp).
func hasCurrencyCode(s string) bool {
	isUpper := func(b byte) bool { return b >= 'A' && b <= 'Z' }
	isLetter := func(b byte) bool { return isUpper(b) || b >= 'a' && b <= 'z' }
	for i := 0; i+3 <= len(s); i++ {
		if !isUpper(s[i]) || i > 0 && isLetter(s[i-1]) {
			continue
		}
		if isUpper(s[i+1]) && isUpper(s[i+2]) && (i+3 == len(s) || !isLetter(s[i+3])) && currencyCodes[s[i:i+3]] {
			return true
		}
	}
	return false
}

// moneyMatches are moneyRe's matches in body (lower is asciiLower(body), ix
// nil or an index of lower),
// with codeBeforeRe's and codeAfterRe's where body holds a currency code,
// in text order and in moneyRe's groups. A code's amount must have a
// decimal part or a thousands separator, so that a citation ("ARS
// 39-121.01", "MDL 2804") or a version ("PHP 8") is no sum; where two
// matches overlap, moneyRe's wins, then a code before its amount ("invoice
// 2024 EUR 30.00" is €30.00, "120 KES 12.00" is KES 12.00).
func moneyMatches(body, lower string, ix *gramIndex) [][]int {
	ms := moneyRe.allSubmatchIndexOpt(body, lower, ix)
	rand := southAfrican(lower)
	if !rand && !hasCurrencyCode(body) {
		return ms
	}
	n := len(ms)
	add := func(m []int, whole, frac []int) {
		if frac[0] < 0 && !strings.ContainsAny(body[whole[0]:whole[1]], ", ") {
			return
		}
		for _, o := range ms {
			if m[0] < o[1] && o[0] < m[1] {
				return
			}
		}
		ms = append(ms, m)
	}
	if rand {
		for _, c := range randRe.FindAllStringSubmatchIndex(body, -1) {
			// symbol, whole, frac in moneyRe's groups 1-3
			add([]int{c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], -1, -1, -1, -1, -1, -1}, c[4:6], c[6:8])
		}
	}
	for _, c := range codeBeforeRe.FindAllStringSubmatchIndex(body, -1) {
		// code, whole, frac in moneyRe's groups 1-3
		add([]int{c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], -1, -1, -1, -1, -1, -1}, c[4:6], c[6:8])
	}
	for _, c := range codeAfterRe.FindAllStringSubmatchIndex(body, -1) {
		// whole, frac, code in moneyRe's groups 4-6
		add([]int{c[0], c[1], -1, -1, -1, -1, -1, -1, c[2], c[3], c[4], c[5], c[6], c[7]}, c[2:4], c[4:6])
	}
	if len(ms) > n {
		sort.SliceStable(ms, func(i, j int) bool { return ms[i][0] < ms[j][0] })
	}
	return ms
}

// perUnitRe is a price per a unit of work or material that ratePost does
// not name ("£15.00 per property search", "£8.50 per plan").
var perUnitRe = regexp.MustCompile(`(?i)^\s*(per|for each|each)\s+[a-z]`)

// markUnitPrices: a price per unit (perUnitRe) that a worked charge then
// multiplies ("Our charge is £15.00 per property search … 9 properties x
// £15.00 = £135.00") is that charge's rate, not the fee; the worked
// result is. Without a worked charge on it, "$25.00 per name" stays what
// one name costs.
func markUnitPrices(body string, amts []amount) {
	computed := false
	for _, a := range amts {
		computed = computed || a.cueName == "computed"
	}
	if !computed {
		return
	}
	for i, a := range amts {
		if a.role == roleRate || !perUnitRe.MatchString(after(body, a.start+len(a.text), 40)) {
			continue
		}
		for _, r := range amts {
			if r.role == roleRate && r.cents == a.cents && r.start != a.start {
				amts[i].role, amts[i].cue, amts[i].cueName = roleRate, 0, ""
				break
			}
		}
	}
}

// randRe is the South African rand written as a bare "R" before the
// amount ("R625.00", "R432,00", "R1 260,00": a space or comma between
// thousands, a decimal point or comma), read only in a South African reply
// (southAfrican): elsewhere "R" begins road numbers, rooms and references.
// moneyMatches keeps only amounts with a decimal part or a thousands
// separator.
var randRe = regexp.MustCompile(`\b(R) ?(\d{1,3}(?:[ ,]\d{3})+|\d+)(?:[.,](\d{2}))?\b`)

// southAfricanMarkers name South Africa's access-to-information law
// (PAIA, Act 2 of 2000) or its government's domain; lower-cased.
var southAfricanMarkers = []string{"promotion of access to information act", "paia", ".gov.za", "south africa"}

// southAfrican reports whether a reply (lower, lower-cased) is South
// African by southAfricanMarkers, so that a bare "R" before an amount is
// the rand.
func southAfrican(lower string) bool { return firstOf(lower, southAfricanMarkers) != "" }

// currencyCode maps a currency symbol, code or word to ISO 4217, and a
// bare "$" or "dollars" to "" (the reply's dollar: dollarCurrency).
func currencyCode(s string) string {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "£", "gbp", "pounds":
		return "GBP"
	case "€", "eur", "euros", "euro":
		return "EUR"
	case "¥", "yen":
		return "JPY"
	case "₩":
		return "KRW"
	case "₱":
		return "PHP"
	case "r$", "reais":
		return "BRL"
	case "ksh.", "ksh", "kshs.", "kshs":
		return "KES"
	case "rupees":
		return "INR"
	case "rand", "r":
		return "ZAR"
	case "lek":
		return "ALL"
	case "a$", "au$", "aud":
		return "AUD"
	case "c$", "cad":
		return "CAD"
	case "nz$", "nzd":
		return "NZD"
	case "₹", "rs.", "rs. ", "inr":
		return "INR"
	case "zar":
		return "ZAR"
	case "$", "dollars":
		return "" // the reply's dollar: dollarCurrency
	case "us$", "usd":
		return "USD"
	}
	if c := strings.TrimSpace(s); currencyCodes[c] {
		return c
	}
	return "USD"
}

// dollarMarkers name a jurisdiction whose dollar is not the US dollar by
// its records law or its government's domain (not by a place name: a
// Canadian County, Ontario CA and Alberta VA are in the US), and usMarkers
// a US records law; lower-cased.
var (
	dollarMarkers = []struct {
		code    string
		markers []string
	}{
		{"AUD", []string{"(cth)", ".gov.au", "western australia", "new south wales", "freedom of information act 1992", "foi act 1992", "gipa act"}},
		{"CAD", []string{".gc.ca", "access to information act", "atip ", "fippa", "freedom of information and protection of privacy act"}},
		{"NZD", []string{".govt.nz", "official information act", "lgoima", "new zealand"}},
	}
	usMarkers = []string{"foia", "u.s.c", "united states", "public records act", "open records", "right to know", "right-to-know", "public information act", "sunshine law", "freedom of information law"}
)

// dollarCurrency is the ISO 4217 code of a bare "$" in a reply (lower,
// lower-cased): AUD, CAD or NZD when the reply names that one jurisdiction
// (Western Australia's FOI Act 1992, Canada's Access to Information Act,
// New Zealand's Official Information Act 1982) and no US records law; else
// USD.
func dollarCurrency(lower string) string {
	for _, m := range usMarkers {
		if strings.Contains(lower, m) {
			return "USD"
		}
	}
	found := ""
	for _, d := range dollarMarkers {
		for _, m := range d.markers {
			if strings.Contains(lower, m) {
				if found != "" && found != d.code {
					return "USD" // two jurisdictions named: not read
				}
				found = d.code
				break
			}
		}
	}
	return cmp.Or(found, "USD")
}

// tableTotals reads OCR'd invoice tables where the amount sits on its own
// line next to a "Total" label ("30.00\n\nTotal Cost:"), with or without "$".
func tableTotals(body string) []amount {
	lines := strings.Split(body, "\n")
	offs := make([]int, len(lines))
	o := 0
	for i, l := range lines {
		offs[i] = o
		o += len(l) + 1
	}
	var out []amount
	for i, l := range lines {
		if !containsFold(l, "total") { // which totalLabelLine needs
			continue
		}
		m := totalLabelLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if m[3] != "" && !strings.Contains(m[3], "$") {
			if c, ok := parseCents(m[4], m[5]); ok {
				out = append(out, amount{cents: c, currency: "USD", start: offs[i], role: roleTotal, cue: 5, text: strings.TrimSpace(l)})
			}
			continue
		}
		if m[3] != "" {
			continue // "$" amounts are found by moneyRe already
		}
		for d := 1; d <= 3; d++ {
			for _, k := range []int{i - d, i + d} {
				if k < 0 || k >= len(lines) {
					continue
				}
				if bm := bareAmountLine.FindStringSubmatch(lines[k]); bm != nil {
					if c, ok := parseCents(bm[1], bm[2]); ok {
						out = append(out, amount{cents: c, currency: "USD", start: offs[k], role: roleTotal, cue: 4.5, text: strings.TrimSpace(lines[k]) + " (next to \"" + strings.TrimSpace(l) + "\")"})
						goto next
					}
				}
			}
		}
	next:
	}
	return out
}

// quantityUnit is what a rate is charged per: hours of staff time or
// pages copied.
type quantityUnit struct {
	post *regexp.Regexp // after the amount: "per hour", "/page"
	pre  *regexp.Regexp // before it: "2 hrs @", "300 pages at"
	qty  *regexp.Regexp // the quantity, group 1
}

var (
	hourUnit = quantityUnit{hourlyPostRe, hourAtPreRe, hoursQtyRe}
	pageUnit = quantityUnit{perPagePostRe, pageAtPreRe, pageQtyRe}
)

// rateTimesHours sums rate × quantity pairs found in one sentence ("38
// hours at $31.64 per hour", "1 hr @ $50.00"); without an hourly rate, copy
// charges ("300 pages at $0.25 per page"), in the first paired rate's
// currency. ok is false when no rate could be paired with a quantity.
func rateTimesHours(body string, amts []amount) (money, bool) {
	if total, ok := rateTimes(body, amts, hourUnit); ok {
		return total, true
	}
	return rateTimes(body, amts, pageUnit)
}

// forTimesRe joins a rate to the quantity that follows it: "$0.10 per page
// for 450 pages", "$25/hr x 14 hours".
var forTimesRe = regexp.MustCompile(`(?i)^\s*(for|x|×|times)\s+`)

// quantityAfter returns the quantity that follows the rate ending at end in
// body, in its sentence ("$0.10 per page for 450 pages"), as
// FindAllStringSubmatch would, or nil.
func quantityAfter(body string, end int, u quantityUnit) [][]string {
	after := body[end:min(len(body), end+80)]
	after = sentenceHead(after)
	m := u.post.FindStringIndex(after)
	if m == nil {
		return nil
	}
	after = after[m[1]:]
	lead := forTimesRe.FindStringIndex(after)
	if lead == nil {
		return nil
	}
	q := u.qty.FindStringSubmatchIndex(after[lead[1]:])
	if q == nil || q[0] != 0 {
		return nil
	}
	rest := after[lead[1]:]
	return [][]string{{rest[q[0]:q[1]], rest[q[2]:q[3]]}}
}

func rateTimes(body string, amts []amount, u quantityUnit) (money, bool) {
	var total float64
	paired := false
	currency := ""
	for _, a := range amts {
		if a.role != roleRate {
			continue
		}
		end := a.start + len(a.text)
		post := body[end:min(len(body), end+20)]
		pre := body[max(0, a.start-90):a.start]
		if !u.post.MatchString(post) && !u.pre.MatchString(pre) {
			continue
		}
		// Only look inside the current sentence.
		pre = sentenceTail(pre)
		qs := u.qty.FindAllStringSubmatch(pre, -1)
		if len(qs) == 0 {
			qs = quantityAfter(body, end, u)
		}
		if len(qs) == 0 {
			continue
		}
		q := qs[len(qs)-1][1]
		n, ok := numberWords[strings.ToLower(q)]
		if !ok {
			v, err := strconv.ParseFloat(strings.ReplaceAll(q, ",", ""), 64)
			if err != nil {
				continue
			}
			n = v
		}
		total += n * float64(a.cents)
		paired = true
		if currency == "" {
			currency = a.currency
		}
	}
	return money{cents: int64(math.Round(total)), currency: currency}, paired
}

// extractFee picks the fee of a reply: the best-cued total; else a deposit or
// minimum asked for; else rate × stated hours; nil when only a rate is given.
func extractFee(body string) feeResult { return extractFeeLower(body, asciiLower(body), nil) }

// extractFeeLower is extractFee; lower is asciiLower(body), and ix, when not
// nil, indexes lower.
func extractFeeLower(body, lower string, ix *gramIndex) feeResult {
	amts := findAmountsLower(body, lower, ix)
	if len(amts) > 0 && firstOf(lower, feeContextWords) == "" {
		// Amounts in a letter that never speaks of paying, charging or
		// estimating are figures of the records ("the annual maintenance
		// contract costs £96,000"), not a fee.
		var res feeResult
		for _, a := range amts {
			res.reported = res.reported || a.role == roleRecord
			res.all = append(res.all, money{a.cents, a.currency, true})
		}
		return res
	}
	var res feeResult
	res.waived = waived(lower, ix)
	count := map[int64]int{}
	// notDue holds the sums stated as a limit or as already paid: the same
	// figure mentioned again without a strong cue is that sum, not a quote.
	notDue := map[int64]bool{}
	// quoted: sums stated as an estimate, a total or a range's upper end; a
	// ceiling of the same sum is that quote restated ("we estimate the fees
	// at $96.00 … your assurance that you will pay fees of up to $96.00").
	quoted := map[int64]bool{}
	for _, a := range amts {
		quoted[a.cents] = quoted[a.cents] || a.rangeHigh || a.role == roleTotal
	}
	for _, a := range amts {
		count[a.cents]++
		nd := a.role == roleThreshold && !quoted[a.cents] || a.role == roleLimit || a.role == roleOverLimit || a.role == roleCredit || a.role == roleOtherFee
		res.reported = res.reported || a.role == roleRecord
		res.all = append(res.all, money{a.cents, a.currency, nd})
		if nd {
			notDue[a.cents] = true
		}
	}
	product, hasProduct := rateTimesHours(body, amts)
	if hasProduct {
		res.all = append(res.all, product)
	}
	// Rate × hours that comes to a stated limit is how the limit is worked
	// out ("£25 an hour for 18 hours"), not a charge; nor is its rate.
	limitBasis := hasProduct && notDue[product.cents]
	hasProduct = hasProduct && !limitBasis
	type cand struct {
		a     amount
		score float64
	}
	var cands []cand
	for _, a := range amts {
		var s float64
		switch a.role {
		case roleTotal:
			s = 10 + a.cue
		case roleDeposit:
			s = 8
		case rolePlain:
			s = 5
		default:
			continue
		}
		if a.role != roleDeposit && !paymentNear(body, a) && !(a.cueName == "computed" && rateOnLineBefore(body, amts, a)) &&
			!(a.role == roleTotal && workedStatementTotal(body, amts, a)) && !(a.rangeHigh && paymentInNextSentence(body, a)) {
			continue // an amount in the records themselves ("fines issued: £19,220")
		}
		if alternativeOffer(lower, a.start) {
			s -= 3 // "If you would rather pick them up, … the amount due is $3.50"
		}
		if notDue[a.cents] && (a.role == rolePlain || a.role == roleTotal && a.cue < 5) {
			continue // "the limit of £450 … the £450 would be exceeded"
		}
		s += 0.5 * float64(min(count[a.cents]-1, 3))
		switch {
		case netOfDeduction(body, amts, a) || a.role == roleTotal && reducedTotal(lower, amts, a):
			s += 2 // "a total of $432.00, less the two free hours ($96.00), for an estimated fee of $336.00"
		case a.role == roleTotal && sumOfParts(amts, a):
			s += 1.5 // below a revised figure's lead over a total; "… an estimated fee of $80.00 … amounts to $70.00. The total estimated fee is therefore $150.00"
		case restAfterDeposit(amts, a):
			s -= 3 // "a deposit of $150.00 … the balance of $370.00" of $520.00
		case partOfLaterTotal(amts, a):
			s -= 2 // "$83.00, plus $13.80 postage …, for a total of $96.80"
		}
		if hasProduct && a.cents == product.cents && a.cueName != "computed" {
			s += 1.5 // a stated sum that rate × quantity confirms
		}
		cands = append(cands, cand{a, s})
	}
	// A "$0.00" line of a statement is the fee only when nothing else is.
	if hasProduct || slices.ContainsFunc(cands, func(c cand) bool { return c.a.cents > 0 }) {
		cands = slices.DeleteFunc(cands, func(c cand) bool { return c.a.cents == 0 })
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].score != cands[j].score {
			return cands[i].score > cands[j].score
		}
		return cands[i].a.cents > cands[j].a.cents
	})
	if len(cands) > 0 {
		best := cands[0].a
		if best.role == rolePlain {
			// An uncued amount is a fee only when it is the single amount
			// mentioned (besides rates), or it equals rate × hours.
			distinct := map[int64]bool{}
			for _, c := range cands {
				distinct[c.a.cents] = true
			}
			if len(distinct) > 1 && !(hasProduct && best.cents == product.cents) {
				if hasProduct {
					return res.withProduct(product)
				}
				res.reason = fmt.Sprintf("amounts without a fee cue (%d distinct), fee left unset", len(distinct))
				return res
			}
		}
		if res.waived && !(best.role == roleTotal && best.cue >= 5) && best.role != roleDeposit {
			res.reason = fmt.Sprintf("the reply says no fee is due; %s is not a fee quote", workflow.Money(best.cents, best.currency))
			return res
		}
		c := best.cents
		res.cents = &c
		res.currency = best.currency
		res.cued = best.role != rolePlain
		res.reason = fmt.Sprintf("fee %s from %q (%s)", workflow.Money(c, best.currency), clip(best.text, 60), roleName(best.role))
		return res
	}
	if hasProduct {
		return res.withProduct(product)
	}
	for _, a := range amts {
		if a.role == roleRate && !limitBasis {
			res.rateOnly = true
			res.reason = fmt.Sprintf("only a rate is stated (%q), fee unknown", clip(a.text, 30))
			return res
		}
	}
	for _, a := range amts {
		if what, ok := notAQuote[a.role]; ok {
			res.reason = fmt.Sprintf("%s is %s, not a fee quote", workflow.Money(a.cents, a.currency), what)
			return res
		}
	}
	return res
}

// sumOfParts reports whether a is the sum of two or more amounts just
// before it (a run of charges, rates left out): the total of an itemised
// statement, which outranks each of its items.
func sumOfParts(amts []amount, a amount) bool { return summedFrom(amts, a) >= 0 }

// summedFrom returns the start of the first of the two or more amounts just
// before a (rates left out) that a is the sum of, or -1 when it sums none.
func summedFrom(amts []amount, a amount) int {
	var parts []amount
	for _, b := range amts {
		if b.start >= a.start {
			break
		}
		if b.role != roleRate && b.cents > 0 && b.currency == a.currency {
			parts = append(parts, b)
		}
	}
	for i := len(parts) - 2; i >= 0; i-- {
		var sum int64
		for _, c := range parts[i:] {
			sum += c.cents
		}
		if sum == a.cents {
			return parts[i].start
		}
	}
	return -1
}

// partOfLaterTotal reports whether a is one of the items a later total
// sums ("The total cost is $83.00, plus $13.80 postage …, for a total of
// $96.80"): an item of the charge, not the charge.
func partOfLaterTotal(amts []amount, a amount) bool {
	for _, b := range amts {
		if b.start > a.start && b.role == roleTotal && b.cents > a.cents {
			if from := summedFrom(amts, b); from >= 0 && from <= a.start {
				return true
			}
		}
	}
	return false
}

// workedStatementTotal reports whether a ends its line, totals the items
// before it (sumOfParts) and a rate stands among them ("9 hours @
// $15.00/hr ... $135.00" … "TOTAL ... $312.40"): the total of a statement
// of worked charges, a fee however far its heading ("Estimated charges:")
// is. A subtotal inside a line ("Overhead (20% of total labor, $270.00)
// ... $54.00") is not one.
func workedStatementTotal(body string, amts []amount, a amount) bool {
	rest := body[a.start+len(a.text):]
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	if strings.TrimSpace(rest) != "" || !sumOfParts(amts, a) {
		return false
	}
	for _, b := range amts {
		if b.start < a.start && a.start-b.start <= 800 && b.role == roleRate {
			return true
		}
	}
	return false
}

// netOfDeduction reports whether a is what remains of an earlier amount
// after a deduction named between them is taken off (a = x − y, within 300
// bytes; "less", "minus", free hours, a waiver, a credit): the net charge,
// which supersedes the gross. A balance after a deposit is not one.
func netOfDeduction(body string, amts []amount, a amount) bool {
	for i, x := range amts {
		if x.start >= a.start || a.start-x.start > 300 || x.cents <= a.cents {
			continue
		}
		for _, y := range amts[i+1:] {
			if y.start < a.start && y.role != roleDeposit && x.cents-y.cents == a.cents &&
				firstOf(asciiLower(body[x.start:y.start]), deductionWords) != "" {
				return true
			}
		}
	}
	return false
}

// reducedTotal reports whether a total a follows a larger amount of the
// same currency within 400 bytes, with no amount but rates between them,
// and a reduction (deductionWords) is named in a's sentence after it ("we
// have reduced the charge by one third, giving a total of $152" after
// "which comes to $228"): the charge as reduced, which supersedes the gross
// as netOfDeduction's does when the deduction is not stated as an amount.
func reducedTotal(lower string, amts []amount, a amount) bool {
	// The reduced sum follows the gross it reduces: amounts between them
	// are items of a statement ("6 hours @ $30.00/hour (first 3 hours
	// free) $90.00 … Photocopies … $30.00"), where a free part named on an
	// item's line reduces that item, or other sums whose reduction this is
	// not. So the gross is the last amount before a, rates left out.
	var x *amount
	for i := range amts {
		if amts[i].start >= a.start {
			break
		}
		if amts[i].role != roleRate {
			x = &amts[i]
		}
	}
	return x != nil && a.start-x.start <= 400 && x.cents > a.cents && x.currency == a.currency &&
		(x.role == roleTotal || x.role == rolePlain) && firstOf(sentenceTail(lower[x.start:a.start]), deductionWords) != ""
}

// restAfterDeposit reports whether a is what is left of another amount
// once a deposit asked for in the reply is paid: the rest of the quote, not
// the quote.
func restAfterDeposit(amts []amount, a amount) bool {
	for _, d := range amts {
		if d.role != roleDeposit {
			continue
		}
		for _, x := range amts {
			if x.cents-d.cents == a.cents {
				return true
			}
		}
	}
	return false
}

// deductionWords name what is taken off a gross charge.
var deductionWords = []string{"less", "minus", "free", "waiv", "credit", "deduct", "discount", "reduc"}

// rateOnLineBefore reports whether a rate stands before a on its line: a
// charge worked out from it ("12 hours at £25 per hour = £300.00").
func rateOnLineBefore(body string, amts []amount, a amount) bool {
	lineStart := strings.LastIndexByte(body[:a.start], '\n') + 1
	for _, r := range amts {
		if r.role == roleRate && r.start >= lineStart && r.start < a.start {
			return true
		}
	}
	return false
}

// alternativeOffer reports whether the sentence holding lower[at] offers
// the requester another way ("If you would rather pick them up, the amount
// due is $3.50"; "Alternatively, …"): its amount is not the quote.
func alternativeOffer(lower string, at int) bool {
	head := sentenceHeadBefore(lower, at)
	for _, w := range alternativeWords {
		if strings.HasPrefix(head, w) {
			return true
		}
	}
	return false
}

// alternativeWords open a sentence that offers another way than the one
// quoted ("if you still wish to receive these records, please remit" is
// the quote's own condition).
var alternativeWords = []string{"alternatively", "if you would rather", "if you'd rather", "if you prefer", "if you would prefer", "if you'd prefer", "should you prefer", "if you instead", "if you choose to pick", "if you pick"}

// notAQuote says what an amount of each of these roles is instead of a fee.
var notAQuote = map[feeRole]string{
	roleLimit:     "a cost limit",
	roleOverLimit: "the cost of compliance over a cost limit",
	roleThreshold: "a threshold",
	roleCredit:    "already paid, received or refunded",
	roleRecord:    "a figure in the records",
	roleOtherFee:  "the fee of an appeal or complaint",
}

func (res feeResult) withProduct(p money) feeResult {
	res.cents = &p.cents
	res.currency = p.currency
	res.cued = true
	res.reason = fmt.Sprintf("fee %s computed as rate × stated hours or pages", workflow.Money(p.cents, p.currency))
	return res
}

func roleName(r feeRole) string {
	switch r {
	case roleTotal:
		return "total"
	case roleDeposit:
		return "deposit/minimum asked"
	case roleRate:
		return "rate"
	default:
		return "amount"
	}
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// paymentInNextSentence reports whether the rest of a's sentence or the
// next one (within 300 bytes of a) asks for payment (rangePayRe): the upper
// end of a range that the next sentence asks to be paid ("should run
// somewhere between $85 and $120 depending on the sheets. We need payment
// of the estimate before …"). A word of pay alone ("copies of the pay
// scales are attached") does not: a range of salaries is a figure of the
// records.
func paymentInNextSentence(body string, a amount) bool {
	rest := body[a.start+len(a.text) : min(len(body), a.start+len(a.text)+300)]
	end := 0
	for range 2 {
		m := sentenceStopR.allIn(rest[end:], 1)
		if m == nil {
			end = len(rest)
			break
		}
		end += m[0][1]
	}
	return rangePayRe.MatchString(rest[:end])
}

// rangePayRe: the requester is asked for money ("we need payment", "an
// invoice", "a deposit", "pay for the copies").
var rangePayRe = regexp.MustCompile(`(?i)\b(payment|prepayment|invoice|deposit|remit|remittance|pay (the|this|that|it|us|for|before|in advance))\b`)

// paymentWords say that an amount is money the requester is asked for.
var paymentWords = []string{"fee", "cost", "charge", "pay", "invoice", "deposit", "remit", "estimat", "price",
	"check", "cheque", "money order", "billable", "rate", "amount due", "balance", "total due", "quote",
	"once paid", "once you've paid", "once you have paid", "postage"}

// feeContextWords: a letter that asks for a fee says one of these
// somewhere (every fee quote of the three corpora does).
var feeContextWords = []string{"pay", "remit", "deposit", "invoice", "cheque", "money order", "proceed", "agree", "authoriz", "authoris",
	"confirm", "estimat", "fee", "charge", "quote", "billable", "due", "per hour", "per page", "an hour", "hourly", "a page",
	"will cost", "would cost", "cost of", "costs of", "cost to", "cost for", "total cost", "billed", "/hour", "/hr", "/page", "hrs", "hr @", "hours at",
	"check", "cents", "each", "owed", "cash", "total is", "total of", "costs $", "once paid", "once you've paid", "once you have paid"}

// paymentNear reports whether a payment word is within 150 bytes before
// the amount (300 for a total, which may close a list of charges) or 60
// after it: otherwise the amount is part of the records themselves ("fines
// issued in 2023: £19,220"), not a fee.
func paymentNear(body string, a amount) bool {
	back := 150
	if a.role == roleTotal {
		back = 300
	}
	ctx := asciiLower(body[max(0, a.start-back):min(len(body), a.start+len(a.text)+60)])
	return firstOf(ctx, paymentWords) != ""
}
