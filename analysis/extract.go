package analysis

import (
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/foiaflow/foiaflow/workflow"
)

// ---- tracking number ----

var (
	trackingLabeledRe   = fre(`(?i)\b(?:request|case|reference|ref|tracking|control|confirmation|ticket|log|file|foia|foil|foipa|prr)\s*(?:log\s+|tracking\s+|case\s+)?(?:no\.?|number|num\.?|#|id)?\s*[:#]?\s*\*?((?:[A-Z]{1,5}[- ])?[A-Z]{0,6}\d[A-Z0-9]*(?:-[A-Z0-9]+)*)\b`)
	trackingFormRe      = newFullRe(`\b((?:FOIA|FOIL|FOIPA|PRR|PRA|OPRA|CPRA|R|W|P|C|[A-Z]{2,4})-\d{2,4}-[0-9A-Z-]{2,})\b`)
	yearOnlyRe          = regexp.MustCompile(`^(19|20)\d\d$`)
	trackingLabelWordRe = regexp.MustCompile(`(?i)foia|foil|foipa|prr|request|case|tracking|reference|ref`)
)

// extractTracking returns the agency's tracking number for the request, or
// "". It ignores MuckRock mail codes ("DEPT MR 36565"), years and phone-like
// digit runs. bix indexes asciiLower(body).
func extractTracking(body string, bix *gramIndex) string {
	best := ""
	bestAt := len(body) + 1
	for _, m := range trackingFormRe.allSubmatchIndexIn(body, bix) {
		if m[0] < bestAt {
			best, bestAt = body[m[2]:m[3]], m[0]
		}
	}
	for _, m := range submatchesIn(trackingLabeledRe, bix, 64) {
		if m[2] < 0 {
			continue
		}
		tok := strings.ToUpper(strings.TrimSpace(body[m[2]:m[3]]))
		pre := strings.ToUpper(body[max(0, m[0]-8):m[0]])
		label := strings.ToLower(body[m[0]:m[2]])
		if strings.Contains(pre, "MR ") || strings.Contains(pre, "MR") && strings.HasSuffix(strings.TrimSpace(pre), "MR") {
			continue
		}
		if yearOnlyRe.MatchString(tok) || countDigits(tok) < 3 || len(tok) > 30 {
			continue
		}
		// A bare label word like "file" or "log" must be followed by a
		// number marker to count ("file 3" is prose).
		if !strings.ContainsAny(label, "#:") && !strings.Contains(label, "no") && !strings.Contains(label, "number") &&
			!trackingLabelWordRe.MatchString(label) {
			continue
		}
		if m[0] < bestAt {
			best, bestAt = tok, m[0]
		}
	}
	return best
}

func countDigits(s string) int {
	n := 0
	for _, c := range s {
		if c >= '0' && c <= '9' {
			n++
		}
	}
	return n
}

// ---- dates ----

const monthNames = `(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)`

var (
	dateMDY   = fre(`(?i)\b` + monthNames + `\.? (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})\b`)
	dateDMY   = newFullRe(`(?i)\b(\d{1,2}) ` + monthNames + `\.?,? (\d{4})\b`)
	dateSlash = newFullRe(`\b(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})\b`)
	dateISO   = newFullRe(`\b(\d{4})-(\d{2})-(\d{2})\b`)
	// deadlineCue introduces a date as a deadline when it ends at most 40
	// bytes before the date with no "." between (deadlineBefore).
	deadlineCue = newFullRe(`(?i)\bby|on or before|no later than|before|estimated (completion |response )?date( of| is)?|expect(ed)?|anticipate[sd]?|due( date)?( is| of| on)?|deadline( is| of)?|complete[d]? (by|on)|ready (by|on)|available (by|on)|\(|until`)
	// pastDateWords, ending the text just before a date, make it a past
	// date ("received on", "letter of"); "on" covers "received on" and
	// the like.
	pastDateWords = []string{"dated", "received", "sent", "sent to you", "submitted", "filed", "since", "letter of", "request of", "email of", "from", "issued", "on"}
	relDaysRe     = regexp.MustCompile(`(?i)\b(additional|within|in|extend\w* (by|for)?|take|approximately|another)\s+(?:up to\s+)?(?:an additional\s+)?(\w+\s+)?\(?(\d+)\)?\s+(business |working |calendar )?(days|weeks|months|years)\b`)
	monthIndex    = map[string]time.Month{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12}
)

type foundDate struct {
	t     time.Time
	start int
}

// findDates lists the dates written in s; ix indexes asciiLower(s).
func findDates(s string, ix *gramIndex) []foundDate {
	var out []foundDate
	add := func(y, mo, d int, at int) {
		if y < 100 {
			y += 2000
		}
		if mo < 1 || mo > 12 || d < 1 || d > 31 || y < 1990 || y > 2100 {
			return
		}
		t := time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC)
		if t.Day() != d {
			return
		}
		out = append(out, foundDate{t, at})
	}
	for _, m := range submatchesIn(dateMDY, ix, 64) {
		mon := monthIndex[strings.ToLower(s[m[2]:m[3]])[:3]]
		d, _ := strconv.Atoi(s[m[4]:m[5]])
		y, _ := strconv.Atoi(s[m[6]:m[7]])
		add(y, int(mon), d, m[0])
	}
	for _, m := range dateDMY.allSubmatchIndexIn(ix.text, ix) {
		d, _ := strconv.Atoi(s[m[2]:m[3]])
		mon := monthIndex[strings.ToLower(s[m[4]:m[5]])[:3]]
		y, _ := strconv.Atoi(s[m[6]:m[7]])
		add(y, int(mon), d, m[0])
	}
	for _, m := range dateSlash.allSubmatchIndexIn(s, ix) {
		if !strings.Contains(s, "/") {
			break
		}
		mo, _ := strconv.Atoi(s[m[2]:m[3]])
		d, _ := strconv.Atoi(s[m[4]:m[5]])
		y, _ := strconv.Atoi(s[m[6]:m[7]])
		add(y, mo, d, m[0])
	}
	for _, m := range dateISO.allSubmatchIndexIn(s, ix) {
		y, _ := strconv.Atoi(s[m[2]:m[3]])
		mo, _ := strconv.Atoi(s[m[4]:m[5]])
		d, _ := strconv.Atoi(s[m[6]:m[7]])
		add(y, mo, d, m[0])
	}
	return out
}

// pastDateBefore reports whether pre, the text just before a date, ends
// in one of pastDateWords (spaces after it allowed).
func pastDateBefore(pre string) bool {
	t := strings.ToLower(strings.TrimRight(pre, " \t\r\n\f"))
	for _, w := range pastDateWords {
		if strings.HasSuffix(t, w) {
			return true
		}
	}
	return false
}

// deadlineBefore reports whether a deadlineCue ends in pre at most 40
// characters before its end, with no "." after it.
func deadlineBefore(pre string) bool {
	tail := pre[strings.LastIndexByte(pre, '.')+1:]
	for _, m := range deadlineCue.allIn(tail, -1) {
		if utf8.RuneCountInString(tail[m[1]:]) <= 40 {
			return true
		}
	}
	return false
}

// extractDeadline finds the estimated completion / response date: the first
// date introduced by a deadline cue ("by", "on or before", "estimated
// completion date"), not in the past relative to received (when known); else
// received plus a stated duration ("an additional fourteen (14) days").
func extractDeadline(body string, received time.Time, bix *gramIndex) (*time.Time, string) {
	var best *foundDate
	for _, d := range findDates(body, bix) {
		pre := body[max(0, d.start-60):d.start]
		if pastDateBefore(pre) || !deadlineBefore(pre) {
			continue
		}
		if !received.IsZero() && d.t.Before(received.UTC().Truncate(24*time.Hour).Add(-24*time.Hour)) {
			continue
		}
		if best == nil || d.start < best.start {
			dd := d
			best = &dd
		}
	}
	if best != nil {
		return &best.t, "deadline " + best.t.Format("2006-01-02") + " from a dated commitment"
	}
	if received.IsZero() {
		return nil, ""
	}
	m := relDaysRe.FindStringSubmatch(body)
	if m == nil {
		return nil, ""
	}
	n, err := strconv.Atoi(m[4])
	if err != nil || n <= 0 || n > 3650 {
		return nil, ""
	}
	base := time.Date(received.Year(), received.Month(), received.Day(), 0, 0, 0, 0, time.UTC)
	var t time.Time
	switch strings.ToLower(m[6]) {
	case "days":
		if strings.TrimSpace(strings.ToLower(m[5])) == "business" || strings.TrimSpace(strings.ToLower(m[5])) == "working" {
			t = addBusinessDays(base, n)
		} else {
			t = base.AddDate(0, 0, n)
		}
	case "weeks":
		t = base.AddDate(0, 0, 7*n)
	case "months":
		t = base.AddDate(0, n, 0)
	case "years":
		t = base.AddDate(n, 0, 0)
	}
	return &t, "deadline " + t.Format("2006-01-02") + " = received + " + strings.Join(strings.Fields(m[0]), " ")
}

// addBusinessDays skips weekends only; statutory holidays are the clock
// package's job.
func addBusinessDays(t time.Time, n int) time.Time {
	for n > 0 {
		t = t.AddDate(0, 0, 1)
		if t.Weekday() != time.Saturday && t.Weekday() != time.Sunday {
			n--
		}
	}
	return t
}

// ---- portal ----

var (
	urlRe        = fre(`(?i)\bhttps?://[^\s<>()"'\]]+|\bwww\.[^\s<>()"'\]]+`)
	portalCueRe  = newFullRe(`(?i)portal|log ?in|sign ?in|register|track|create an account|submit|new request|records center|request center|govqa|nextrequest|justfoia|foiaxpress`)
	fileShareRe  = newFullRe(`(?i)dropbox\.com|sharefile\.com|box\.com/s|drive\.google|onedrive|sharepoint\.com|1drv\.ms|wetransfer|we\.tl|/download|\.pdf\b|\.zip\b|\.xlsx?\b|\.csv\b|\.mp4\b`)
	vendorByHost = []struct{ host, vendor string }{
		{"govqa.us", "GovQA"}, {"mycusthelp.com", "GovQA"}, {"mycusthelp.net", "GovQA"},
		{"nextrequest.com", "NextRequest"}, {"justfoia.com", "JustFOIA"},
		{"foiaxpress", "FOIAXpress"}, {"foiaonline.gov", "FOIAonline"},
		{"openrecords.nyc.gov", "NYC OpenRecords"}, {"securerelease.us", "SecureRelease"},
	}
	vendorByName = []struct {
		re     fullRe
		vendor string
	}{
		{newFullRe(`(?i)\bgov ?qa\b|mycusthelp`), "GovQA"},
		{newFullRe(`(?i)\bnext ?request\b`), "NextRequest"},
		{newFullRe(`(?i)\bjust ?foia\b`), "JustFOIA"},
		{newFullRe(`(?i)\bfoia ?xpress\b`), "FOIAXpress"},
	}
)

func vendorOf(u string) string {
	p, err := url.Parse(u)
	host := strings.ToLower(u)
	if err == nil && p.Host != "" {
		host = strings.ToLower(p.Host + p.Path)
	}
	for _, v := range vendorByHost {
		if strings.Contains(host, v.host) {
			return v.vendor
		}
	}
	return ""
}

// extractPortal returns the portal URL and vendor named by the reply (body or
// portal-system footer): a vendor-hosted URL first, else a URL in a sentence
// about a portal/login/new request; the vendor also from its name in text.
func extractPortal(text string) (string, string) {
	var cueURL string
	lower := asciiLower(text)
	for _, m := range urlRe.findAll(lower, 64) {
		u := strings.TrimRight(text[m[0]:m[1]], ".,;:")
		if v := vendorOf(u); v != "" {
			return u, v
		}
		if cueURL == "" && !fileShareRe.matchString(u, lower[m[0]:m[0]+len(u)]) {
			lo := max(0, m[0]-160)
			ctx := text[lo:m[0]]
			if i := strings.LastIndex(ctx, "\n\n"); i >= 0 {
				lo += i
				ctx = ctx[i:]
			}
			if portalCueRe.matchString(ctx, lower[lo:m[0]]) {
				cueURL = u
			}
		}
	}
	vendor := ""
	for _, v := range vendorByName {
		if v.re.matchString(text, lower) {
			vendor = v.vendor
			break
		}
	}
	return cueURL, vendor
}

// hasRecordsLink reports a download link or a non-image attachment.
func hasRecordsLink(text string, atts []workflow.Attachment) (bool, string) {
	return hasRecordsLinkLower(text, asciiLower(text), nil, atts)
}

// hasRecordsLinkLower is hasRecordsLink; lower is asciiLower(text), and ix,
// when not nil, indexes lower.
func hasRecordsLinkLower(text, lower string, ix *gramIndex, atts []workflow.Attachment) (bool, string) {
	for _, a := range atts {
		ct := strings.ToLower(a.ContentType)
		name := strings.ToLower(a.Filename)
		if strings.HasPrefix(ct, "image/") || strings.HasPrefix(name, "image0") || strings.HasSuffix(name, ".ics") || strings.HasSuffix(name, ".vcf") {
			continue
		}
		return true, "attachment " + a.Filename
	}
	for _, u := range urlRe.findAllOpt(lower, ix, 64) {
		if m := text[u[0]:u[1]]; fileShareRe.matchString(m, lower[u[0]:u[1]]) {
			return true, "download link " + clip(m, 60)
		}
	}
	if len(downloadPhraseRe.findAllOpt(lower, ix, 1)) > 0 {
		return true, "reply says files are available to download"
	}
	return false, ""
}

var downloadPhraseRe = fre(`(?i)(files?|records?|documents?) (are |is )?(now )?available (for you )?(to|for) download|available for download|download (the |your )?(records|files|documents) (here|at|from)`)

// ---- exemptions ----

var (
	exemptionRe = fre(`(?i)(?:5 u\.?s\.?c\.? ?§* ?552\(b\)(?:\(\d\))?(?:\([a-f]\))?|\(b\)\(\d\)(?:\([a-f]\))?|exemptions? \d(?:\([a-f]\))?|(?:gov(?:ernment|'t)?\.? code|penal code|pc|gc|public officers law|civ(?:il)?\.? code|evid(?:ence)?\.? code|k\.?s\.?a\.?|mcl|a\.?c\.?a\.?|\d+ o\.?s\.?|rcw|ilcs|g\.?s\.?|c\.?r\.?s\.?|labor code|health (?:and|&) safety code)\s*(?:§+\s*|sec(?:tion|\.)?\s*)?\d[\d.\-:a-z]*(?:\s?\(\w{1,4}\))*|§+\s*\d[\d.\-:]*(?:\s?\(\w{1,4}\))*|(?:sections?|s\.|regulation|reg\.)\s?(?:\d{1,3}[a-z]?(?:\s?\(\w{1,4}\))+|(?:2[1-9]|3\d|4[0-4])\b))`, "exempt", "withh", "redact", "denied", "deny", "not subject", "confidential", "protected", "privacy", "privilege", "not required", "prohibit", "refus")
	// exemptContext: a citation counts when one of these is within 250
	// bytes before it or 60 after; exemptNot: not when its own sentence is
	// about appeals, fees or time.
	exemptContext = []string{"exempt", "withh", "redact", "denied", "deny", "refus", "not subject to", "confidential", "protected", "privacy", "privilege", "not required to", "prohibit"}
	exemptNot     = []string{"appeal", " fee ", " fees", "charge", "extension", "deposit", " cost", "additional time", "copy of the record", "programming",
		"appropriate limit", "cost limit", "refusal notice", "not held", "do not exist", "does not exist", "cannot be found", "could not be found"}
)

// sectionCite reports whether a citation extractExemptions found is a
// section of an FOI Act ("section 43(2)", "s.40(2)", "regulation
// 12(4)(b)": the UK form; Illinois' "Section 7(1)(c)" too), not a US
// exemption number or a code section.
func sectionCite(cite string) bool {
	c := strings.ToLower(cite)
	return strings.HasPrefix(c, "section") || strings.HasPrefix(c, "s.") || strings.HasPrefix(c, "reg")
}

// extractExemptions lists the legal citations the agency relied on to
// withhold or redact, deduplicated, at most 12. lix indexes the lower-cased
// body, and spans are its sentences (sentenceSpans). Citations are looked
// for in the sentences that hold a digit and have withholding words close
// by.
func extractExemptions(body string, lix *gramIndex, spans [][2]int) []string {
	var out []string
	seen := map[string]bool{}
	lower := lix.text
	// Where the withholding words are, looked up once in the index: a
	// sentence is read when one lies within 250 bytes before it or 60
	// after.
	var ctx [][2]int // start and end of each, by start
	var pos []int
	for _, w := range exemptContext {
		pos = lix.positions(w, pos[:0])
		for _, p := range pos {
			ctx = append(ctx, [2]int{p, p + len(w)})
		}
	}
	if len(ctx) == 0 {
		return nil
	}
	slices.SortFunc(ctx, func(a, b [2]int) int { return a[0] - b[0] })
	near := func(from, to int) bool {
		i, _ := slices.BinarySearchFunc(ctx, from, func(c [2]int, t int) int { return c[0] - t })
		for ; i < len(ctx) && ctx[i][0] < to; i++ {
			if ctx[i][1] <= to {
				return true
			}
		}
		return false
	}
	for _, sp := range spans {
		sent := lower[sp[0]:sp[1]]
		if !near(max(0, sp[0]-250), sp[1]+60) || !strings.ContainsAny(sent, "0123456789") {
			continue
		}
		for _, m := range exemptionRe.findAllInWindow(sent, 16) {
			a, b := m[0]+sp[0], m[1]+sp[0]
			cite := strings.Join(strings.Fields(strings.TrimRight(body[a:b], ".-:")), " ")
			own := " " + sentenceAround(lower, a, b) + " "
			ctx := lower[max(0, a-250):min(len(lower), b+60)]
			if firstOf(ctx, exemptContext) == "" || firstOf(own, exemptNot) != "" {
				continue
			}
			k := strings.ToLower(cite)
			if seen[k] || countDigits(cite) == 0 {
				continue
			}
			seen[k] = true
			out = append(out, cite)
			if len(out) == 12 {
				return out
			}
		}
	}
	return dropGeneralCites(out)
}

// dropGeneralCites drops a bare citation that a more specific one in the
// list refines ("Section 42" beside "section 42(1)").
func dropGeneralCites(cites []string) []string {
	out := cites[:0]
	for _, c := range cites {
		general := false
		for _, o := range cites {
			if len(o) > len(c) && strings.EqualFold(o[:len(c)], c) && o[len(c)] == '(' {
				general = true
				break
			}
		}
		if !general {
			out = append(out, c)
		}
	}
	return out
}

// sentenceAround returns the sentence containing s[i:j].
func sentenceAround(s string, i, j int) string {
	lo := i
	for lo > 0 && !(s[lo-1] == '\n' && lo >= 2 && s[lo-2] == '\n') && !(lo >= 2 && s[lo-2] == '.' && s[lo-1] == ' ') {
		lo--
		if i-lo > 300 {
			break
		}
	}
	hi := j
	for hi < len(s) && !(s[hi] == '.' && (hi+1 == len(s) || s[hi+1] == ' ' || s[hi+1] == '\n')) {
		hi++
		if hi-j > 300 {
			break
		}
	}
	return s[lo:hi]
}

// ---- referred agency ----

// referredRe finds where a reply points elsewhere and the agency (or
// address) it names (group 1); run from the literals its matches start
// with.
var referredRe = newStartRe(regexp.MustCompile(`(?:should (?:go|be sent|be directed|be submitted|be addressed|be made|be filed|be forwarded) (?:directly )?to|(?:please |you may (?:wish to )?|you should |you will need to )(?:contact|reach out to|direct your request to|submit your request to|send your request to|file your request with)|(?:forwarded|referred|transferred|redirected) (?:your request |this request |the request |it )?to|custodian (?:of (?:these|those|the|such) records )?is|(?:maintained|held|kept) by) (?:the )?([\w.+-]+@[\w-]+\.[\w.]+|[A-Z][\w'&-]*(?: (?:of|for|and|the|on|&|[A-Z][\w'&-]*))*)`))

// extractReferredAgency names the agency (or address) the reply points to.
func extractReferredAgency(body string) string {
	for _, at := range referredRe.findAll(body, math.MaxInt) {
		// The pattern has no assertions: its submatches on the match
		// alone are those of the match in body.
		m := referredRe.re.FindStringSubmatch(body[at[0]:at[1]])
		a := strings.TrimRight(m[1], ".,;: ")
		for _, suf := range []string{" of", " for", " and", " the", " on", " &"} {
			a = strings.TrimSuffix(a, suf)
		}
		if a == "" || strings.EqualFold(a, "our") || strings.EqualFold(a, "us") || strings.EqualFold(a, "me") {
			continue
		}
		return a
	}
	return ""
}

// ---- constraints ----

var constraintRules = []struct {
	c  workflow.Constraint
	re fastRe
}{
	{workflow.ConstraintBWCExempt, fre(`(?i)(body[- ]?(worn )?cam(era)?s?|bwc|body[- ]worn)[^.]{0,120}(exempt|withh|not (be )?(released|disclosed|subject)|denied|confidential)|(exempt|withh|denied)[^.]{0,80}(body[- ]?(worn )?cam(era)?|bwc)`)},
	{workflow.ConstraintFeeRequired, fre(`(?i)pre-?pay|prepayment|deposit|payment (is |will be )?required|(upon|after|once|until) (receipt of )?(the |your )?(payment|deposit|fee)|before (we|staff) (begin|start|proceed)|invoice`)},
	{workflow.ConstraintIDRequired, fre(`(?i)(proof|verification|certification) of (your )?identity|verify your identity|(photo|government[- ]issued|valid) (id|identification)|notarized|doj-361|signed (privacy )?(waiver|release|authorization)|third[- ]party authorization`)},
	{workflow.ConstraintInvestigationActive, fre(`(?i)(ongoing|active|pending|open|current) (criminal |law enforcement |internal )?(investigation|prosecution|case|litigation|enforcement proceeding)|(investigation|prosecution|case) (is|remains) (still )?(ongoing|active|pending|open)|552\(b\)\(7\)\(a\)|\(b\)\(7\)\(a\)|exemption 7\(a\)|interfere with (an? )?(ongoing |pending )?(investigation|enforcement)|investigations?[^.]{0,40}(are|is) (generally )?exempt|7923\.600`)},
	{workflow.ConstraintPrivacyExemption, fre(`(?i)privacy|unwarranted invasion|hipaa|\(b\)\(6\)|\(b\)\(7\)\(c\)|personal(ly)? identif(ying|iable) information|medical (records|information|privacy)|ferpa|87\(2\)\(b\)`)},
	{workflow.ConstraintRetentionExpired, fre(`(?i)retention (period|schedule|policy)[^.]{0,80}(expired|passed|only|is|elapsed)|(purged|destroyed|expunged|deleted|overwritten|disposed of)\b[^.]{0,60}(retention|schedule|policy|in accordance|per|after|at that time|records)|no longer (retained|maintained|kept|available)|(records|files|footage|video)[^.]{0,40}(were|was|have been|has been) (purged|destroyed|expunged|deleted|overwritten)`)},
	{workflow.ConstraintWrongAgency, fre(`(?i)not the (proper |correct |appropriate )?(custodian|agency)|should (go|be sent|be directed|be submitted) to|(records|files) (are|is) (maintained|held|kept) by (the|another)|not maintained by (the|our|this)`)},
}

// extractConstraints returns the constraints evidenced in body, in the
// stable order of workflow.AllConstraints, plus the reasons. lix indexes the
// lower-cased body.
func extractConstraints(lix *gramIndex, class workflow.Class, fee *int64) ([]workflow.Constraint, []string) {
	var out []workflow.Constraint
	var why []string
	for _, cr := range constraintRules {
		m := cr.re.findIn(lix)
		switch {
		case m != "":
			out = append(out, cr.c)
			why = append(why, "constraint "+string(cr.c)+": \""+clip(m, 70)+"\"")
		case cr.c == workflow.ConstraintFeeRequired && class == workflow.ClassFeeQuote && fee != nil:
			out = append(out, cr.c)
			why = append(why, "constraint FEE_REQUIRED: fee quoted")
		case cr.c == workflow.ConstraintWrongAgency && class == workflow.ClassWrongAgency:
			out = append(out, cr.c)
			why = append(why, "constraint WRONG_AGENCY: reply classified WRONG_AGENCY")
		}
	}
	return out, why
}

// ---- sentiment ----

var (
	hostileRe  = fre(`(?i)harass|frivolous|vexatious|abusive|stop (sending|emailing|contacting|harassing)|waste of (our|my|taxpayer) time|ridiculous|absurd|do not contact (us|me|this office)|cease and desist|will not (be )?tolerated?|legal action against you|spam(ming)?\b|shut up|idiot|stupid`)
	negativeRe = fre(`(?i)unfortunately|regret|unable to|cannot|can not|denied|will not|not required|declined|missed|at an end|no longer|not be receiving|not yield`)
	positiveRe = fre(`(?i)happy to|glad to|pleased to|thank you for your patience|we appreciate|good news|hope this helps|my pleasure|please let me know if you have any questions|have a (wonderful|great|nice) day`)
)

func sentimentOf(lix *gramIndex, class workflow.Class) (workflow.Sentiment, string) {
	if m := hostileRe.findIn(lix); m != "" {
		return workflow.SentimentHostile, "tone hostile: \"" + m + "\""
	}
	neg := len(negativeRe.findAllIn(lix, 4))
	if neg >= 2 || (neg >= 1 && (class == workflow.ClassDenial || class == workflow.ClassNoRecords)) {
		return workflow.SentimentNegative, "tone negative (" + strconv.Itoa(neg) + " negative phrases)"
	}
	if positiveRe.matchIn(lix) || class == workflow.ClassRecordsReady {
		return workflow.SentimentPositive, ""
	}
	return workflow.SentimentNeutral, ""
}

// enumeratedLineRe is a line that opens an item of a list of questions:
// with an item number or letter ("1.", "2)", "3 How", "(a)", "b.", "Q3:",
// "Question 4") or with a question word ("How many", "What", "Do you").
var enumeratedLineRe = regexp.MustCompile(`^\s*(?:(?:\(?\d{1,2}[.):]?|\(?[a-z][.)]|\([ivx]{1,4}\)|q(?:uestion)?\s*\d{1,2}[.):]?)\s+[a-z(]|(?:how|what|which|when|where|who|why|do|does|did|is|are|was|were|has|have)\b)`)

// askedOfRequesterRe marks a question the agency puts to the requester
// (a clarification), not one of the request's own questions restated.
var askedOfRequesterRe = regexp.MustCompile(`\b(?:could|would|can|will) you\b|\bplease (?:confirm|clarify|specify|indicate|advise|let)\b|\bdo you (?:wish|want|still)\b|\b(?:do|did) you mean\b|\bare you (?:asking|referring) (?:for|to|about)\b|\bare you (?:looking for|seeking|requesting) (?:the|a|an|any|records|copies|information)\b`)

// answerRe is how an answer in place opens or what it holds: a figure, a
// yes or no, or the authority speaking ("the council holds", "we do not").
var answerRe = regexp.MustCompile(`\d|^(?:answer|response|reply|yes|no|n/a|none|nil|zero|not held|the (?:council|authority|department|trust|force)|we|there)\b`)

// responseLeadRe introduces an answer set out in the reply itself ("Please
// see our response below:", "Our response is as follows").
var responseLeadRe = fre(`(response|responses|answers?|reply)( to (your|the) (request|questions|enquiry))?( is| are)?( set out| provided| given)? (below|as follows)|(find|see) (below|our response|the response)|\b(our )?(response|answer):`)

// numberedItemRe opens a numbered item of a list ("1. Total number of …",
// "2) Expenditure …").
var numberedItemRe = regexp.MustCompile(`^\s*(\d{1,2})[.)]\s+\S`)

// itemisedResponse reports whether the reply (ix: lower-cased, with its
// line breaks) answers the request item by item after a response lead: items
// numbered 1 and 2 in order after "Please see our response below:" (the
// usual UK and Australian form when the request's items are not
// questions; answeredQuestions reads the ones that are); without a lead,
// two numbered items that state figures (figureItems).
func itemisedResponse(ix *gramIndex) bool {
	loc := responseLeadRe.findAllIn(ix, 1)
	if len(loc) == 0 {
		return figureItems(ix.text) >= 2
	}
	next := 1
	for _, l := range strings.Split(ix.text[loc[0][1]:], "\n") {
		m := numberedItemRe.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if m[1] == strconv.Itoa(next) {
			if next == 2 {
				return true
			}
			next++
		}
	}
	return false
}

// figureItemRe is a numbered item that states a figure after its label,
// the figure ending the line ("1. Number of households in temporary
// accommodation: 6,204.", "Q2 Total spend in 2023: £2.1m."); a date or a
// year range ("Payroll data: 2018-2023") is not one.
var figureItemRe = regexp.MustCompile(`^\s*(?:\(?\d{1,2}[.):]|q(?:uestion)?\s*\d{1,2}[.):]?)\s+[^\n]{3,160}?[:?]\s*[£$€]?\d[\d,]*(?:\.\d+)?\s*(?:%|m|k|bn|million|billion)?\.?\s*$`)

// figureItemGate: how a figure item's line can start. figureItemRe is
// case-sensitive, so the gate needs no check for the non-ASCII folds of k
// and s (split's gates have one); add it before giving the pattern (?i).
var figureItemGate = newLeadGate(figureItemRe)

// figureItems counts the numbered items of lower (lower-cased, with its
// line breaks) that state a figure: two or more are answers in place even
// without a response lead.
func figureItems(lower string) int {
	n := 0
	for _, l := range strings.Split(lower, "\n") {
		if figureItemGate.mayMatch(l) && figureItemRe.MatchString(l) {
			n++
		}
	}
	return n
}

// answeredQuestions counts the request's questions that the reply restates
// and answers in place, as UK and Australian FOI responses do ("1. How
// many … were seized?" then the figure): a numbered or lettered item whose
// question mark comes within three lines of its start, followed on its
// line or within the next three (before the next item) by an answer
// (answerRe) that gives information ("Not held." does not:
// notHeldAnswerRe). lower is the lower-cased agency text with its original
// line breaks.
func answeredQuestions(lower string) int { return informativeAnswers(answeredQuestionList(lower)) }

// informativeAnswers counts the questions of qs whose answer gives
// information (not notHeldAnswerRe).
func informativeAnswers(qs []answeredQuestion) int {
	n := 0
	for _, q := range qs {
		if !notHeldAnswerRe.MatchString(q.answer) {
			n++
		}
	}
	return n
}

// answeredQuestion is one of the request's questions answered in place:
// the span of the question (lower) and the start of its answer.
type answeredQuestion struct {
	span   [2]int
	answer string
}

// questionSpans returns the spans of qs (from each item's start to its
// question mark): the requester's words, restated ("1. How many requests
// did the Council refuse as vexatious? 7.").
func questionSpans(qs []answeredQuestion) [][2]int {
	if len(qs) == 0 {
		return nil
	}
	out := make([][2]int, len(qs))
	for i, q := range qs {
		out[i] = q.span
	}
	return out
}

// answeredQuestionList lists the request's questions answered in place
// (answeredQuestions).
func answeredQuestionList(lower string) []answeredQuestion {
	if !strings.Contains(lower, "?") {
		return nil
	}
	lines := strings.Split(lower, "\n")
	starts := make([]int, len(lines))
	for i, off := 0, 0; i < len(lines); i++ {
		starts[i] = off
		off += len(lines[i]) + 1
	}
	var out []answeredQuestion
	for i := 0; i < len(lines); i++ {
		if !enumeratedLineRe.MatchString(lines[i]) {
			continue
		}
		q := -1 // line of the question mark
		for j := i; j < len(lines) && j <= i+3; j++ {
			if j > i && enumeratedLineRe.MatchString(lines[j]) {
				break
			}
			if strings.Contains(lines[j], "?") {
				q = j
				break
			}
		}
		if q < 0 || askedOfRequesterRe.MatchString(strings.Join(lines[i:q+1], " ")) {
			continue
		}
		if ok, answer := answeredAfter(lines, q); ok {
			out = append(out, answeredQuestion{[2]int{starts[i], starts[q] + strings.LastIndexByte(lines[q], '?') + 1}, answer})
		}
		i = q
	}
	return out
}

// answeredAfter reports whether the question ending on lines[q] is answered:
// the rest of its line, or one of the next two lines that are not a
// bracketed instruction ("[Please respond with Yes or No]"), reads as an
// answer (answerRe), before the next item.
func answeredAfter(lines []string, q int) (bool, string) {
	if t := strings.TrimSpace(lines[q][strings.LastIndexByte(lines[q], '?')+1:]); t != "" {
		return answerRe.MatchString(t), t
	}
	seen := 0
	for j := q + 1; j < len(lines) && seen < 2 && !enumeratedLineRe.MatchString(lines[j]); j++ {
		t := strings.TrimSpace(lines[j])
		if t == "" || t[0] == '(' || t[0] == '[' {
			continue
		}
		if !strings.HasSuffix(t, "?") && answerRe.MatchString(t) {
			return true, t
		}
		seen++
	}
	return false, ""
}

// notHeldAnswerRe is an answer in place that gives no information ("Not
// held.", "We do not record this information.", "As above.", a refusal or
// a withholding).
var notHeldAnswerRe = regexp.MustCompile(`^(?:n/a|none|nil|as above|not (?:held|recorded|known|available|collected))\b|^(?:we|the (?:council|authority|department|trust|force)) (?:do|does) not (?:hold|record|have|keep|collect)\b|\b(?:refus|withh[oe]ld|exempt|neither confirm|cannot (?:provide|disclose|release)|unable to (?:provide|disclose|release))`)

// lateRe is an apology for lateness: the deadline has passed, so the reply
// is not a first acknowledgment (it delivers, or it moves the date).
var lateRe = fre(`(?:apologi[sz]e|apologies|sorry|regret)[^.!?]{0,30}\bdelay|(?:apologi[sz]e|apologies|sorry)[^.!?]{0,30}\b(?:late|overdue)\b|(?:is|are|was) (?:now )?(?:late|overdue)\b|(?:passed|missed|exceeded) (?:the )?(?:statutory )?(?:deadline|time limit|due date)`)

// reviewRightsRe is the paragraph a final decision carries on how to
// challenge it: internal review, the Information Commissioner, an appeal
// (FOIA 2000 s.17(7); 5 U.S.C. 552(a)(6)(A)(i)). An acknowledgment or an
// extension has nothing yet to challenge.
var reviewRightsRe = fre(`(?:dissatisfied|unhappy|not (?:happy|satisfied)) with (?:the|this|our|my) (?:response|handling|decision|outcome|way)|(?:request|ask for|seek) an internal review|right to (?:request|ask for|seek) (?:an? )?(?:internal )?review|(?:complain|appeal|apply) to the (?:information )?commissioner|(?:you may|you have the right to|you can) (?:administratively )?appeal (?:this|the|our) (?:decision|determination|response)`)
