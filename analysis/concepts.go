package analysis

import (
	"slices"
	"sort"
)

// concepts group the words that carry a FOIA reply's meaning. A sentence's
// concepts, taken in pairs ("s:NEG+HOLD"), say what it is about whatever
// its exact wording: "we do not hold", "no records were located" and "the
// council does not have any information" all give NEG+HOLD. They are model
// features (Feature names "s:<A>" and "s:<A>+<B>"), weighted by training.
var concepts = map[string]string{}

func init() {
	for concept, words := range map[string][]string{
		"ATTACH":   {"attached", "attach", "attaching", "enclosed", "enclose", "herewith", "find"},
		"RECORDS":  {"records", "record", "documents", "document", "files", "file", "emails", "copies", "copy", "materials", "material", "reports", "pages", "data", "information", "footage", "video", "spreadsheet"},
		"RELEASE":  {"release", "released", "releasing", "provide", "provided", "providing", "produce", "produced", "production", "disclose", "disclosed", "disclosing", "disclosure", "sent", "supply", "supplied", "download", "available", "access"},
		"WITHHOLD": {"withheld", "withhold", "withholding", "redacted", "redact", "redaction", "redactions", "exempt", "exemption", "exemptions", "confidential", "privileged", "privilege"},
		"NEG":      {"not", "no", "none", "unable", "cannot", "never", "nothing", "neither", "nor", "dont", "doesnt", "didnt", "wont"},
		"HOLD":     {"hold", "holds", "held", "possess", "possession", "maintain", "maintains", "maintained", "locate", "located", "found", "exist", "exists", "custody", "retain", "retained", "keep", "kept"},
		"RECEIVE":  {"received", "receipt", "receive", "acknowledge", "acknowledges", "acknowledged", "acknowledgement", "acknowledgment", "logged", "registered"},
		"TIME":     {"days", "weeks", "months", "extension", "extend", "extended", "delay", "delayed", "additional", "deadline", "estimated", "estimate", "date", "longer", "time", "timescale"},
		"MONEY":    {"fee", "fees", "cost", "costs", "charge", "charges", "invoice", "payment", "pay", "paid", "deposit", "$", "check", "cheque", "remit", "hourly", "prepayment"},
		"ASK":      {"clarify", "clarification", "confirm", "specify", "narrow", "which", "whether", "refine", "reduce", "describe", "identify", "prefer"},
		"OTHER":    {"another", "other", "different", "separate", "directed", "forward", "forwarded", "referred", "transferred", "redirected", "responsibility", "contact", "instead"},
		"PORTAL":   {"portal", "online", "website", "form", "account", "login", "register", "submit", "link"},
		"DENY":     {"deny", "denied", "denial", "refuse", "refused", "refusal", "decline", "declined", "reject", "rejected", "vexatious"},
		"REQUEST":  {"request", "requests", "application", "enquiry", "inquiry"},
		"PROCESS":  {"process", "processed", "processing", "review", "reviewing", "search", "searching", "working", "respond", "response"},
		"COMPLETE": {"complete", "completed", "final", "fulfilled", "closed", "closing"},
		"PART":     {"part", "partial", "partially", "some", "portion", "portions", "installment", "instalment", "interim", "remaining", "remainder"},
	} {
		for _, w := range words {
			if c, dup := concepts[w]; dup {
				// One concept per word, or the features would depend on
				// map order.
				panic("analysis: word " + w + " in concepts " + c + " and " + concept)
			}
			concepts[w] = concept
		}
	}
}

// sentenceConcepts calls emit for each concept (b "") and each pair of
// concepts (a < b alphabetically: the feature "s:a+b") present in one
// sentence of a text's words, with the sentence's byte span.
func sentenceConcepts(words []token, emit func(a, b string, start, end int)) {
	var set []string
	start, end := -1, 0
	flush := func() {
		if len(set) == 0 {
			return
		}
		sort.Strings(set)
		for i, a := range set {
			emit(a, "", start, end)
			for _, b := range set[i+1:] {
				emit(a, b, start, end)
			}
		}
		set = set[:0]
	}
	for _, t := range words {
		if t.breakBefore {
			flush()
			start = -1
		}
		if start < 0 {
			start = t.start
		}
		end = t.end
		c, ok := concepts[t.word]
		if !ok || slices.Contains(set, c) {
			continue
		}
		set = append(set, c)
	}
	flush()
}
