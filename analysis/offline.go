package analysis

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/foiaflow/foiaflow/workflow"
)

// Confidence thresholds shared by both analyzers.
const (
	// UnknownBelow: a classification with less confidence than this is
	// reported as ClassUnknown.
	UnknownBelow = 0.30
	// GateConfidence: decide_next_action gates (ESCALATE) any analysis
	// below this confidence by default (MIN_CONFIDENCE,
	// workflow.GateConfidence). Guards that distrust an answer push
	// confidence under it.
	GateConfidence = workflow.GateConfidence
	// ReviewMaxConfidence caps the offline analyzer's confidence where its
	// class is only a suggestion for a reviewer — a German reply, a model
	// that disagrees with the cue table, or a class read from words alone
	// below OverruleConfidence — so that no MIN_CONFIDENCE above it lets
	// the class act alone.
	ReviewMaxConfidence = 0.50
	// OverruleConfidence: the calibrated probability at which the model's
	// class stands against the cue table's reading (another class, or a
	// tie); below it the class is capped at ReviewMaxConfidence. Chosen on
	// real leave-one-set-out and written leave-one-batch-out predictions:
	// of those the cue table disagreed with, the ones at 0.95 or more were
	// right 201 times in 204 (written) and 4 in 4 (real); from 0.8 to 0.95
	// on the real sets, 2 in 4.
	OverruleConfidence = 0.95
	// wordsAloneSuggest: a reply without any FOIA cue or fact (words
	// alone) gets the model's class as a reviewer's suggestion from this
	// probability (likelier than every other class together), and stands
	// at OverruleConfidence; below it, UNKNOWN. Chosen on replies held
	// out, on those without a cue or fact the words-alone class at 0.5 or
	// more was right in 14 of 15 letters written outside the project and
	// 0 of 1 real replies (leave-one-set-out); below 0.5, in 5 of 8 and 1
	// of 6.
	wordsAloneSuggest = 0.5
	// MaxReplyBytes caps the text either analyzer reads (DESIGN I8); the rest
	// is ignored and a reason says so.
	MaxReplyBytes = 64 << 10
	// maxSubjectBytes caps the subject line the offline analyzer prepends
	// to the text it reads.
	maxSubjectBytes = 1000
	// evidenceShown is how many contributing features a reviewer sees.
	evidenceShown = 6
)

// OfflineName is the Analysis.Analyzer value of the offline analyzer.
const OfflineName = "offline/2"

// Offline is the deterministic, network-free analyzer (seed 000 §3.2,
// §10.1): features of the agency's own text → the shipped reply model →
// calibrated probability → decision and evidence; facts from the exact
// extractors. The zero value uses the embedded model and is safe for
// concurrent use.
type Offline struct {
	// Model replaces the shipped model (cross-validation scores a model
	// trained without the replies it is scored on).
	Model *Model
}

var _ workflow.Analyzer = Offline{}

// evidence is one cue (a FOIA phrase family of cues.go) that matched.
type evidence struct {
	class   workflow.Class
	weight  float64
	name    string
	snippet string
	start   int // offset in body, -1 for derived evidence
	// boilerplate: matched inside an appeal-rights sentence, where it
	// counts for appealDiscount of itself.
	boilerplate bool
}

// Analyze classifies reply and extracts its facts. It never returns an error
// (ctx is only checked for cancellation); an unclear reply is ClassUnknown
// with reasons.
func (o Offline) Analyze(ctx context.Context, reply workflow.Reply, c workflow.CaseContext) (workflow.Analysis, error) {
	if err := ctx.Err(); err != nil {
		return workflow.Analysis{}, err
	}
	m := o.Model
	if m == nil {
		m = shipped
	}
	return analyzeOffline(m, reply, c), nil
}

// Features returns the reply model's inputs for reply: the features the
// offline analyzer scores, in a stable order. The trainer (cmd/train) reads
// replies through it, so training and inference see the same features.
func Features(reply workflow.Reply) []Feature {
	rd, _ := prepare(reply)
	rd.release()
	return rd.feats
}

// prepare reads reply as the offline analyzer does: HTML-only replies as
// text, at most MaxReplyBytes, normalized, instruction-like sentences
// removed, zones split, extractors run, features built. The reasons say
// what was cut or ignored.
func prepare(reply workflow.Reply) (reading, []string) {
	var reasons []string
	raw := reply.Text
	if strings.TrimSpace(raw) == "" && reply.HTML != "" {
		raw = htmlToText(reply.HTML)
	}
	if len(raw) > MaxReplyBytes {
		raw = raw[:MaxReplyBytes]
		reasons = append(reasons, fmt.Sprintf("reply truncated to %d bytes", MaxReplyBytes))
	}
	if len(reply.Subject) > maxSubjectBytes {
		// The subject is outside the MaxReplyBytes cap: a megabyte subject
		// took seconds to analyze (found by FuzzAnalyze).
		reasons = append(reasons, fmt.Sprintf("subject truncated to %d bytes", maxSubjectBytes))
	}
	clean, flags, removed, cix := stripInjectionsIndexed(normalize(raw))
	for _, s := range removed {
		reasons = append(reasons, "ignored instruction-like sentence (possible prompt injection): \""+clip(s, 80)+"\"")
	}
	rd := read(reply, clean, cix, maxSubjectBytes)
	rd.notes = flags
	return rd, reasons
}

// priors are the cue table's and the facts' own weights (Priors), looked
// up by feature name.
var priors = Priors()

// cueTableClass is the class the cue table's own weights give feats: the
// class of classes with the largest positive sum of prior weights; "tied"
// when two classes share that sum, "" when no sum is positive. It is the
// reading the model was trained from, kept as a second opinion.
func cueTableClass(feats []Feature, classes []workflow.Class) workflow.Class {
	score := make([]float64, len(classes))
	for _, f := range feats {
		p, ok := priors[f.Name]
		if !ok {
			continue
		}
		for k, c := range classes {
			if c == p.Class {
				score[k] += p.Weight * f.Value
			}
		}
	}
	best, tied := -1, false
	for k, v := range score {
		switch {
		case v <= 0:
		case best < 0 || v > score[best]:
			best, tied = k, false
		case v == score[best]:
			tied = true
		}
	}
	switch {
	case best < 0:
		return ""
	case tied:
		return "tied"
	}
	return classes[best]
}

// CueTableDisagrees reports whether the cue table's own weights read feats
// as a class other than the model's (the top of logits, which
// m.Logits(feats) gives) or as a tie between two classes: the replies whose
// confidence the analyzer caps for a reviewer unless the model overrules the
// table at OverruleConfidence. Their probability is calibrated by
// Temperature, every other reply's by AgreementTemperature.
func (m *Model) CueTableDisagrees(feats []Feature, logits []float64) bool {
	top, _ := rankProbs(logits)
	return disagrees(cueTableClass(feats, m.Classes), m.Classes[top])
}

// temperature is the calibration temperature of a reply whose cue-table
// reading does (disagree) or does not contradict the model's class.
func (m *Model) temperature(disagree bool) float64 {
	if disagree || m.AgreementTemperature <= 0 {
		return m.Temperature
	}
	return m.AgreementTemperature
}

// disagrees: the cue table's reading cueClass (cueTableClass) is not the
// model's class.
func disagrees(cueClass, class workflow.Class) bool {
	return cueClass != "" && cueClass != class
}

func analyzeOffline(m *Model, reply workflow.Reply, c workflow.CaseContext) workflow.Analysis {
	a := workflow.Analysis{Analyzer: OfflineName, Sentiment: workflow.SentimentNeutral}
	rd, reasons := prepare(reply)
	defer rd.release()
	a.InjectionFlags = rd.notes
	a.Reasons = reasons
	body := rd.body

	rows := m.rows(rd.feats)
	logits := m.logits(rd.feats, rows)
	top, second := rankProbs(logits)
	cueClass := cueTableClass(rd.feats, m.Classes)
	probs := Softmax(logits, m.temperature(disagrees(cueClass, m.Classes[top])))
	a.Class, a.Confidence = m.Classes[top], round2(probs[top])
	switch {
	case !rd.english && !rd.german:
		a.Reasons = append(a.Reasons, fmt.Sprintf("the reply is not in English or German: the model (best guess %s at %.2f) is not trusted, UNKNOWN", m.Classes[top], probs[top]))
		a.Class, a.Confidence = workflow.ClassUnknown, 0
	case !rd.hasEvidence():
		// Words alone, without a FOIA cue or fact: the cue table has no
		// reading to set beside the model's. The model's class stands only
		// where it would overrule one (never in German); it is a
		// reviewer's suggestion where it is likelier than all the others
		// together; else UNKNOWN.
		switch {
		case a.Confidence >= OverruleConfidence && !rd.german:
			a.Reasons = append(a.Reasons, fmt.Sprintf("class %s: probability %.2f (calibrated), next %s %.2f, from words alone (no FOIA cue or fact in the agency's text), at %.2f or more", a.Class, probs[top], m.Classes[second], probs[second], OverruleConfidence))
		case a.Confidence >= wordsAloneSuggest: // as rounded and reported
			a.Confidence = min(a.Confidence, ReviewMaxConfidence)
			a.Reasons = append(a.Reasons, fmt.Sprintf("class %s: probability %.2f (calibrated), next %s %.2f, from words alone (no FOIA cue or fact in the agency's text): confidence capped at %.2f for a reviewer", a.Class, probs[top], m.Classes[second], probs[second], ReviewMaxConfidence))
		default:
			a.Reasons = append(a.Reasons, fmt.Sprintf("no FOIA cue or fact in the agency's text (words alone suggest %s at %.2f), UNKNOWN", m.Classes[top], probs[top]))
			a.Class, a.Confidence = workflow.ClassUnknown, 0
		}
	case probs[top] < UnknownBelow:
		a.Reasons = append(a.Reasons, fmt.Sprintf("best class %s at %.2f, %s at %.2f: below %.2f, UNKNOWN", m.Classes[top], probs[top], m.Classes[second], probs[second], UnknownBelow))
		a.Class = workflow.ClassUnknown
	case rd.german:
		// The German cue family reads it, but the model has seen few
		// German replies: its class is a reviewer's suggestion, never
		// confident enough to act on.
		a.Confidence = min(a.Confidence, ReviewMaxConfidence)
		a.Reasons = append(a.Reasons, fmt.Sprintf("class %s: probability %.2f (calibrated), next %s %.2f; the reply is in German: confidence capped at %.2f for a reviewer", a.Class, probs[top], m.Classes[second], probs[second], ReviewMaxConfidence))
	case disagrees(cueClass, a.Class):
		// Two readings of one reply: the trained model and the cue
		// table's own weights (the priors it was trained towards). When
		// they name different classes, a reviewer decides, unless the
		// model is sure enough to overrule the table.
		reading := "read " + string(cueClass)
		if cueClass == "tied" {
			reading = "tie between two classes"
		}
		if a.Confidence >= OverruleConfidence { // as rounded and reported
			a.Reasons = append(a.Reasons, fmt.Sprintf("class %s: probability %.2f (calibrated), next %s %.2f; the cue table's own weights %s, overruled at %.2f or more", a.Class, probs[top], m.Classes[second], probs[second], reading, OverruleConfidence))
			break
		}
		a.Confidence = min(a.Confidence, ReviewMaxConfidence)
		a.Reasons = append(a.Reasons, fmt.Sprintf("class %s: probability %.2f (calibrated), next %s %.2f; the cue table's own weights %s: confidence capped at %.2f for a reviewer", a.Class, probs[top], m.Classes[second], probs[second], reading, ReviewMaxConfidence))
	default:
		a.Reasons = append(a.Reasons, fmt.Sprintf("class %s: probability %.2f (calibrated), next %s %.2f", a.Class, probs[top], m.Classes[second], probs[second]))
	}
	contrib := explain(rd.feats, rows, top, second, evidenceShown)
	a.Reasons = append(a.Reasons, describeContributions(contrib, m.Classes[top], m.Classes[second])...)
	a.Reasons = append(a.Reasons, rd.z.notes...)

	// Facts.
	if rd.fee.cents != nil {
		a.FeeCents, a.FeeCurrency = rd.fee.cents, rd.fee.currency
	}
	if rd.fee.reason != "" {
		a.Reasons = append(a.Reasons, rd.fee.reason)
	}
	a.TrackingNumber = extractTracking(body, rd.bix)
	if d, why := extractDeadline(body, reply.ReceivedAt, rd.bix); d != nil {
		a.Deadline = d
		a.Reasons = append(a.Reasons, why)
	}
	a.PortalURL, a.PortalVendor = rd.portalURL, rd.portalVendor
	a.Exemptions = rd.exemptions
	a.HasRecordsLink = rd.hasLink
	if rd.linkWhy != "" {
		a.Reasons = append(a.Reasons, "records link: "+rd.linkWhy)
	}
	var cWhy []string
	a.ConstraintsToAdd, cWhy = extractConstraints(rd.lix, a.Class, a.FeeCents)
	a.Reasons = append(a.Reasons, cWhy...)
	if a.Class == workflow.ClassWrongAgency {
		a.ReferredAgency = extractReferredAgency(body)
	}
	if a.Class == workflow.ClassDenial || a.Class == workflow.ClassPartial {
		var why string
		a.DenialWeak, why = judgeDenial(rd.lower, a.Exemptions)
		a.Reasons = append(a.Reasons, why)
	}
	var sWhy string
	a.Sentiment, sWhy = sentimentOf(rd.lix, a.Class)
	if sWhy != "" {
		a.Reasons = append(a.Reasons, sWhy)
	}
	a.ScopeUpdates = scopeUpdates(body, a.Class, c.ScopeItems)
	a.KeyPoints = keyPoints(body, contrib, a)
	return a
}

// rankProbs returns the indexes of the two most probable classes (ties to
// the lower index).
func rankProbs(p []float64) (int, int) {
	top, second := 0, 1
	if p[1] > p[0] {
		top, second = 1, 0
	}
	for i := 2; i < len(p); i++ {
		switch {
		case p[i] > p[top]:
			top, second = i, top
		case p[i] > p[second]:
			second = i
		}
	}
	return top, second
}

// describeContributions lists the evidence for the reviewer: each feature
// that pushed the winner over the runner-up, with the text it came from.
// Each line is what fmt.Sprintf("%+.2f %s over %s %s: %q", …) writes,
// spelt out with strconv (the ": %q" only for a feature with a span).
func describeContributions(cs []Contribution, top, second workflow.Class) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		w := strconv.FormatFloat(c.Weight, 'f', 2, 64)
		if w[0] != '+' && w[0] != '-' {
			w = "+" + w // as %+.2f signs it ("+NaN" too)
		}
		line := w + " " + string(top) + " over " + string(second) + " " + c.Feature.Name
		if c.Feature.Span != "" {
			line += ": " + strconv.Quote(clip(c.Feature.Span, 70))
		}
		out = append(out, line)
	}
	return out
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

// Phrases judgeDenial looks for in the lower-cased reply.
var (
	blanketWords       = []string{"generally exempt", "blanket", "all records", "in its entirety", "in their entirety", "categorical", "any and all", "to the extent you consider"}
	investigationWords = []string{"investigat", "7(a)", "(b)(7)", "law enforcement", "7923.600", "832.7"}
	deliberativeWords  = []string{"inter-agency", "intra-agency", "deliberative", "87(2)(g)", "(b)(5)", "draft"}
)

// firstOf returns the first of words that lower contains, or "".
func firstOf(lower string, words []string) string {
	for _, w := range words {
		if strings.Contains(lower, w) {
			return w
		}
	}
	return ""
}

// judgeDenial decides whether a denial is contestable: no exemption cited,
// blanket/boilerplate language, or exemptions (investigation, deliberative,
// privacy) that invite a segregability argument.
func judgeDenial(lower string, exemptions []string) (bool, string) {
	var why []string
	if len(exemptions) == 0 {
		why = append(why, "no specific exemption cited")
	}
	if m := firstOf(lower, blanketWords); m != "" {
		why = append(why, "blanket language \""+m+"\"")
	}
	if firstOf(lower, investigationWords) != "" {
		why = append(why, "investigation/law-enforcement exemption invites a segregability argument")
	}
	if firstOf(lower, deliberativeWords) != "" {
		why = append(why, "deliberative-process exemption: factual portions are segregable")
	}
	if len(why) == 0 && strings.Contains(lower, "privacy") {
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
	if len(items) == 0 {
		return nil
	}
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

// keyPoints are the sentences that carried the strongest evidence plus the
// extracted facts, for the reviewer.
func keyPoints(body string, cs []Contribution, a workflow.Analysis) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range cs {
		at := c.Feature.Start
		if at < 0 || len(out) >= 3 {
			continue
		}
		s := clip(sentenceAround(body, at, at+len(c.Feature.Span)), 200)
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if a.FeeCents != nil {
		out = append(out, "Fee: "+workflow.Money(*a.FeeCents, a.FeeCurrency))
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
