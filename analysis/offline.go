package analysis

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/foiaflow/foiaflow/workflow"
)

// Confidence thresholds shared by both analyzers.
const (
	// UnknownBelow: an offline classification with less confidence than this
	// is reported as ClassUnknown.
	UnknownBelow = 0.30
	// GateConfidence: decide_next_action should gate (ESCALATE) any analysis
	// below this confidence. Guards that distrust an answer push confidence
	// under it.
	GateConfidence = 0.60
	// MaxReplyBytes caps the text either analyzer reads (DESIGN I8); the rest
	// is ignored and a reason says so.
	MaxReplyBytes = 64 << 10
	// maxSubjectBytes caps the subject line the offline analyzer prepends
	// to the text it reads.
	maxSubjectBytes = 1000
)

// OfflineName is the Analysis.Analyzer value of the offline analyzer.
const OfflineName = "offline/1"

// Offline is the deterministic, network-free analyzer (seed 000 §3.2,
// §10.1). The zero value is ready to use and safe for concurrent use.
type Offline struct{}

var _ workflow.Analyzer = Offline{}

// evidence is one rule that fired.
type evidence struct {
	class   workflow.Class
	weight  float64
	name    string
	snippet string
	start   int // offset in body, -1 for derived evidence
}

// tiePriority breaks exact score ties towards the class that needs the most
// care from a reviewer.
var tiePriority = []workflow.Class{
	cDen, cFee, cPart, cNone, cWrng, cPort, cClar, cRdy, cExt, cAck,
}

// Analyze classifies reply and extracts its facts. It never returns an error
// (ctx is only checked for cancellation); an unclear reply is ClassUnknown
// with reasons.
func (Offline) Analyze(ctx context.Context, reply workflow.Reply, c workflow.CaseContext) (workflow.Analysis, error) {
	if err := ctx.Err(); err != nil {
		return workflow.Analysis{}, err
	}
	return analyzeOffline(reply, c), nil
}

func analyzeOffline(reply workflow.Reply, c workflow.CaseContext) workflow.Analysis {
	a := workflow.Analysis{Analyzer: OfflineName, Sentiment: workflow.SentimentNeutral}
	raw := reply.Text
	if strings.TrimSpace(raw) == "" && reply.HTML != "" {
		raw = htmlToText(reply.HTML)
	}
	if len(raw) > MaxReplyBytes {
		raw = raw[:MaxReplyBytes]
		a.Reasons = append(a.Reasons, fmt.Sprintf("reply truncated to %d bytes", MaxReplyBytes))
	}
	norm := normalize(raw)
	clean, flags, removed := stripInjections(norm)
	a.InjectionFlags = flags
	for _, s := range removed {
		a.Reasons = append(a.Reasons, "ignored instruction-like sentence (possible prompt injection): \""+clip(s, 80)+"\"")
	}
	z := split(clean)
	body := z.body
	if s := strings.TrimSpace(reply.Subject); s != "" && !strings.HasPrefix(strings.ToLower(s), "re:") {
		if len(s) > maxSubjectBytes {
			// The subject is outside the MaxReplyBytes cap: a megabyte
			// subject took seconds to analyze (found by FuzzAnalyze).
			cut := maxSubjectBytes
			for cut > 0 && !isRuneStart(s[cut]) {
				cut--
			}
			s = s[:cut]
			a.Reasons = append(a.Reasons, fmt.Sprintf("subject truncated to %d bytes", maxSubjectBytes))
		}
		body = s + "\n" + body
	}
	lower := unwrapLines(asciiLower(body))
	// Key indexes of the two lower-cased forms of the body every fastRe
	// below searches: built once, shared by all patterns.
	lix := newBigramIndex(lower)
	bix := newBigramIndex(asciiLower(body))

	fee := extractFee(body)
	exemptions := extractExemptions(body, lix)
	portalURL, portalVendor := extractPortal(body + "\n" + z.footer)
	ev := scoreRules(lix, body)
	ev = append(ev, derivedEvidence(ev, fee, exemptions, portalURL, portalVendor, z)...)

	scores := map[workflow.Class]float64{}
	for _, e := range ev {
		scores[e.class] += e.weight
	}
	top, second := rank(scores)
	conf := confidence(scores[top], scores[second])
	a.Class, a.Confidence = top, round2(conf)
	if scores[top] == 0 {
		a.Class, a.Confidence = workflow.ClassUnknown, 0
		a.Reasons = append(a.Reasons, "no class evidence found in the agency's text")
	} else if conf < UnknownBelow {
		a.Reasons = append(a.Reasons, fmt.Sprintf("best class %s (%.1f) too close to %s (%.1f): confidence %.2f < %.2f, UNKNOWN", top, scores[top], second, scores[second], conf, UnknownBelow))
		a.Class = workflow.ClassUnknown
	} else {
		a.Reasons = append(a.Reasons, fmt.Sprintf("class %s: score %.1f vs %s %.1f, confidence %.2f", top, scores[top], orNone(second), scores[second], conf))
	}
	a.Reasons = append(a.Reasons, describeEvidence(ev, top)...)
	a.Reasons = append(a.Reasons, z.notes...)

	// Facts.
	if fee.cents != nil {
		a.FeeCents = fee.cents
	}
	if fee.reason != "" {
		a.Reasons = append(a.Reasons, fee.reason)
	}
	a.TrackingNumber = extractTracking(body, bix)
	if d, why := extractDeadline(body, reply.ReceivedAt, bix); d != nil {
		a.Deadline = d
		a.Reasons = append(a.Reasons, why)
	}
	a.PortalURL, a.PortalVendor = portalURL, portalVendor
	a.Exemptions = exemptions
	var linkWhy string
	a.HasRecordsLink, linkWhy = hasRecordsLink(z.full, reply.Attachments)
	if linkWhy != "" {
		a.Reasons = append(a.Reasons, "records link: "+linkWhy)
	}
	cls := top
	var cWhy []string
	a.ConstraintsToAdd, cWhy = extractConstraints(lix, cls, a.FeeCents)
	a.Reasons = append(a.Reasons, cWhy...)
	if a.Class == workflow.ClassWrongAgency {
		a.ReferredAgency = extractReferredAgency(body)
	}
	if a.Class == workflow.ClassDenial || a.Class == workflow.ClassPartial {
		var why string
		a.DenialWeak, why = judgeDenial(lower, a.Exemptions)
		a.Reasons = append(a.Reasons, why)
	}
	var sWhy string
	a.Sentiment, sWhy = sentimentOf(lix, a.Class)
	if sWhy != "" {
		a.Reasons = append(a.Reasons, sWhy)
	}
	a.ScopeUpdates = scopeUpdates(body, a.Class, c.ScopeItems)
	a.KeyPoints = keyPoints(body, ev, top, a)
	return a
}

func orNone(c workflow.Class) string {
	if c == "" {
		return "none"
	}
	return string(c)
}

// unwrapLines joins hard-wrapped lines (a single newline becomes a space;
// paragraph breaks stay) without moving any offset.
func unwrapLines(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == '\n' && (i == 0 || b[i-1] != '\n') && (i+1 == len(b) || b[i+1] != '\n') {
			b[i] = ' '
		}
	}
	return string(b)
}

// asciiLower lower-cases A–Z only, so offsets match the original.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// negationRe and hypotheticalRe, matched just before a negatable rule's
// match, cancel it: "no records were withheld", "if any records are
// withheld", "a formal no records found letter".
var (
	negationRe     = regexp.MustCompile(`\b(no|not|nothing|none|never|without|neither|nor|zero)\b[^.;:\n]{0,25}$`)
	hypotheticalRe = regexp.MustCompile(`\b(if|whether|unless|in the event|should any|formal|to the extent|may|might)\b[^.;:\n]{0,40}$`)
	// appealCtxRe marks appeal-rights boilerplate; evidence inside such a
	// sentence counts for little ("appeal to the head of the public body
	// denying the request").
	appealCtxRe = regexp.MustCompile(`appeal|ogis|dispute resolution|public liaison|judicial review`)
)

// appealExempt rules are about appeal rights themselves.
var appealExempt = map[string]bool{"denial.appeal_rights": true, "denial.appeal_missed": true, "denial.court_remedy": true, "denial.closed": true}

// scoreRules runs the evidence table over the lower-cased body (ix indexes
// it).
func scoreRules(ix *bigramIndex, body string) []evidence {
	var out []evidence
	lower := ix.text
	for i := range rules {
		ru := &rules[i]
		locs := ru.fr.findAllIx(lower, ix, 8)
		for _, m := range locs {
			pre := lower[max(0, m[0]-50):m[0]]
			if ru.negatable && (negationRe.MatchString(pre) || hypotheticalRe.MatchString(pre)) {
				continue
			}
			w := ru.weight
			if !appealExempt[ru.name] && appealCtxRe.MatchString(sentenceAround(lower, m[0], m[1])) {
				w = round2(w * 0.3)
			}
			out = append(out, evidence{class: ru.class, weight: w, name: ru.name, snippet: body[m[0]:m[1]], start: m[0]})
			break
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

// derivedEvidence combines facts into evidence no single phrase carries.
func derivedEvidence(ev []evidence, fee feeResult, exemptions []string, portalURL, portalVendor string, z zones) []evidence {
	var out []evidence
	d := func(c workflow.Class, w float64, name, why string) {
		out = append(out, evidence{class: c, weight: w, name: name, snippet: why, start: -1})
	}
	switch {
	case fee.cents != nil && fee.cued:
		d(cFee, 4.0, "fee.amount", "fee amount "+formatCents(*fee.cents)+" stated")
	case fee.cents != nil:
		d(cFee, 2.0, "fee.amount_uncued", "single amount "+formatCents(*fee.cents)+" stated")
	case fee.rateOnly:
		d(cFee, 2.5, "fee.rate_only", "a rate is quoted for the work")
	}
	delivered := hasAny(ev, "ready.attached_records", "ready.download", "ready.link", "ready.disclosing")
	held := hasAny(ev, "partial.redacted", "partial.withheld", "denial.exempt", "partial.not_yet_available", "partial.more_to_follow", "partial.installment")
	if delivered && held {
		// A delivery with withholding is a partial delivery: the delivery
		// evidence counts for PARTIAL_DELIVERY too.
		w := 1.0
		for _, e := range ev {
			if e.class == cRdy {
				w += e.weight
			}
		}
		d(cPart, w, "partial.delivered_with_withholding", "records delivered while some are withheld, redacted or still to come")
	}
	if portalVendor != "" || (portalURL != "" && hasEvidence(ev, "portal.")) {
		d(cPort, 1.5, "portal.named", "portal "+strings.TrimSpace(portalVendor+" "+clip(portalURL, 50)))
	}
	if z.footer != "" {
		d(cPort, 0.5, "portal.system_footer", "message sent from a records portal")
	}
	if n := len(exemptions); n > 0 && hasAny(ev, "denial.exempt", "denial.denied", "denial.will_not", "denial.not_required") {
		d(cDen, 1.0, "denial.cites_law", fmt.Sprintf("%d legal citation(s) for withholding", n))
	}
	return out
}

// rank returns the best and second-best classes (second "" when only one).
func rank(scores map[workflow.Class]float64) (workflow.Class, workflow.Class) {
	order := make([]workflow.Class, len(tiePriority))
	copy(order, tiePriority)
	sort.SliceStable(order, func(i, j int) bool { return scores[order[i]] > scores[order[j]] })
	top, second := order[0], order[1]
	if scores[second] == 0 {
		second = ""
	}
	return top, second
}

// confidence grows with the amount of evidence for the winner and with its
// margin over the runner-up: (1-e^(-top/1.5)) × (0.4 + 0.6 × margin).
// The scale is set so that one unambiguous strong rule (weight 2, no rival)
// reads 0.74 — above the 0.60 gate — while a near tie (margin ≤ 0.2) stays
// below it whatever the evidence: a scale of 3 put most correct single-rule
// answers under the gate, escalating replies the analyzer had read right.
func confidence(top, second float64) float64 {
	if top <= 0 {
		return 0
	}
	strength := 1 - math.Exp(-top/1.5)
	margin := (top - second) / top
	return strength * (0.4 + 0.6*margin)
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

// describeEvidence lists the evidence, winner first, heaviest first.
func describeEvidence(ev []evidence, top workflow.Class) []string {
	sorted := make([]evidence, len(ev))
	copy(sorted, ev)
	sort.SliceStable(sorted, func(i, j int) bool {
		ti, tj := sorted[i].class == top, sorted[j].class == top
		if ti != tj {
			return ti
		}
		return sorted[i].weight > sorted[j].weight
	})
	out := make([]string, 0, len(sorted))
	for _, e := range sorted {
		out = append(out, fmt.Sprintf("%+.1f %s %s: %q", e.weight, e.class, e.name, clip(e.snippet, 70)))
	}
	return out
}

var (
	blanketRe       = regexp.MustCompile(`generally exempt|blanket|all records|in (its|their) entirety|categorical|any and all|to the extent you consider`)
	investigationRe = regexp.MustCompile(`investigat|7\(a\)|\(b\)\(7\)|law enforcement|7923\.600|832\.7`)
	deliberativeRe  = regexp.MustCompile(`inter-agency|intra-agency|deliberative|87\(2\)\(g\)|\(b\)\(5\)|draft`)
	privacyBroadRe  = regexp.MustCompile(`privacy`)
)

// judgeDenial decides whether a denial is contestable: no exemption cited,
// blanket/boilerplate language, or exemptions (investigation, deliberative,
// privacy) that invite a segregability argument.
func judgeDenial(lower string, exemptions []string) (bool, string) {
	var why []string
	if len(exemptions) == 0 {
		why = append(why, "no specific exemption cited")
	}
	if m := blanketRe.FindString(lower); m != "" {
		why = append(why, "blanket language \""+m+"\"")
	}
	if investigationRe.MatchString(lower) {
		why = append(why, "investigation/law-enforcement exemption invites a segregability argument")
	}
	if deliberativeRe.MatchString(lower) {
		why = append(why, "deliberative-process exemption: factual portions are segregable")
	}
	if len(why) == 0 && privacyBroadRe.MatchString(lower) {
		why = append(why, "privacy exemption: redaction rather than withholding can be asked")
	}
	if len(why) == 0 {
		return false, "denial judged firm: specific exemptions cited (" + strings.Join(exemptions, "; ") + ")"
	}
	return true, "denial judged weak: " + strings.Join(why, "; ")
}

var (
	deliveredCtx = regexp.MustCompile(`(?i)attached|enclosed|releas|provid|produc|disclos|available|link`)
	withheldCtx  = regexp.MustCompile(`(?i)exempt|withh|denied|not subject|confidential|redact`)
	wordRe       = regexp.MustCompile(`[A-Za-z]{4,}`)
	stopWords    = map[string]bool{"records": true, "record": true, "copies": true, "copy": true, "documents": true, "document": true, "related": true, "regarding": true, "including": true, "from": true, "with": true, "that": true, "this": true, "these": true, "those": true, "their": true, "there": true, "which": true, "about": true, "other": true, "pertaining": true, "concerning": true, "between": true, "into": true, "data": true, "files": true, "file": true, "information": true, "reports": true, "report": true, "all": true, "each": true, "your": true}
)

// scopeUpdates maps the reply onto the case's pending scope items: an item
// named in a withholding sentence is EXEMPT (or DENIED), in a delivery
// sentence DELIVERED; a RECORDS_READY reply delivers every pending item.
func scopeUpdates(body string, class workflow.Class, items []workflow.ScopeItem) []workflow.ScopeUpdate {
	var out []workflow.ScopeUpdate
	sentences := sentenceEnd.Split(body, -1)
	for _, it := range items {
		if it.Status != workflow.ScopePending && it.Status != workflow.ScopePartial && it.Status != "" {
			continue
		}
		words := significantWords(it.Item)
		status, reason := workflow.ScopeStatus(""), ""
		for _, s := range sentences {
			if len(words) == 0 || !mentionsAll(asciiLower(s), words) {
				continue
			}
			switch {
			case withheldCtx.MatchString(s):
				status, reason = workflow.ScopeExempt, clip(s, 120)
				if strings.Contains(strings.ToLower(s), "denied") {
					status = workflow.ScopeDenied
				}
			case deliveredCtx.MatchString(s) && status == "":
				status, reason = workflow.ScopeDelivered, clip(s, 120)
			}
		}
		if status == "" && class == workflow.ClassRecordsReady {
			status, reason = workflow.ScopeDelivered, "reply delivers the records"
		}
		if status != "" {
			out = append(out, workflow.ScopeUpdate{Item: it.Item, Status: status, Reason: reason})
		}
	}
	return out
}

func significantWords(s string) []string {
	var out []string
	for _, w := range wordRe.FindAllString(asciiLower(s), -1) {
		if !stopWords[w] {
			out = append(out, w)
		}
	}
	if len(out) > 3 {
		out = out[:3]
	}
	return out
}

func mentionsAll(s string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(s, strings.TrimSuffix(w, "s")) {
			return false
		}
	}
	return true
}

// keyPoints are the sentences that carried the winning evidence plus the
// extracted facts, for the reviewer.
func keyPoints(body string, ev []evidence, top workflow.Class, a workflow.Analysis) []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range ev {
		if e.class != top || e.start < 0 || len(out) >= 3 {
			continue
		}
		s := clip(sentenceAround(body, e.start, e.start+len(e.snippet)), 200)
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if a.FeeCents != nil {
		out = append(out, "Fee: "+formatCents(*a.FeeCents))
	}
	if a.Deadline != nil {
		out = append(out, "Date: "+a.Deadline.Format("2006-01-02"))
	}
	if a.TrackingNumber != "" {
		out = append(out, "Tracking number: "+a.TrackingNumber)
	}
	if a.PortalURL != "" || a.PortalVendor != "" {
		out = append(out, "Portal: "+strings.TrimSpace(a.PortalVendor+" "+a.PortalURL))
	}
	if len(a.Exemptions) > 0 {
		out = append(out, "Exemptions cited: "+strings.Join(a.Exemptions, "; "))
	}
	return out
}

var (
	tagRe       = regexp.MustCompile(`(?s)<(script|style)[^>]*>.*?</(script|style)>|<[^>]+>`)
	blockTagRe  = regexp.MustCompile(`(?i)<(br|/p|/div|/li|/tr|/h\d)[^>]*>`)
	htmlEntRepl = strings.NewReplacer("&nbsp;", " ", "&amp;", "&", "&lt;", "<", "&gt;", ">", "&quot;", "\"", "&#39;", "'", "&#x27;", "'")
)

// htmlToText is a small fallback for replies that arrive with HTML only.
func htmlToText(h string) string {
	h = blockTagRe.ReplaceAllString(h, "\n")
	return htmlEntRepl.Replace(tagRe.ReplaceAllString(h, ""))
}
