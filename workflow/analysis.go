package workflow

import (
	"context"
	"time"

	"github.com/foiaflow/foiaflow/workflow/engine"
)

// Class is the classification of an agency reply (DESIGN.md "The graph";
// seed 000 §3.2). NO_RESPONSE is produced by timer triggers, UNKNOWN when the
// analyzer is not confident enough to route.
type Class string

// Reply classes.
const (
	ClassAcknowledgment Class = "ACKNOWLEDGMENT"
	ClassExtension      Class = "EXTENSION"
	ClassFeeQuote       Class = "FEE_QUOTE"
	ClassDenial         Class = "DENIAL"
	ClassPartial        Class = "PARTIAL_DELIVERY"
	ClassRecordsReady   Class = "RECORDS_READY"
	ClassNoRecords      Class = "NO_RECORDS"
	ClassClarification  Class = "CLARIFICATION_REQUEST"
	ClassWrongAgency    Class = "WRONG_AGENCY"
	ClassPortalRedirect Class = "PORTAL_REDIRECT"
	ClassNoResponse     Class = "NO_RESPONSE"
	ClassUnknown        Class = "UNKNOWN"
)

// ReplyClasses are the ten classes an agency reply can have (plus UNKNOWN),
// in a stable order for reports.
var ReplyClasses = []Class{
	ClassAcknowledgment, ClassExtension, ClassFeeQuote, ClassDenial, ClassPartial,
	ClassRecordsReady, ClassNoRecords, ClassClarification, ClassWrongAgency,
	ClassPortalRedirect, ClassUnknown,
}

// Valid reports whether c is one of the known classes.
func (c Class) Valid() bool {
	if c == ClassNoResponse {
		return true
	}
	for _, k := range ReplyClasses {
		if c == k {
			return true
		}
	}
	return false
}

// Sentiment is the tone of a reply.
type Sentiment string

// Sentiments.
const (
	SentimentPositive Sentiment = "positive"
	SentimentNeutral  Sentiment = "neutral"
	SentimentNegative Sentiment = "negative"
	SentimentHostile  Sentiment = "hostile"
)

// Valid reports whether s is a known sentiment.
func (s Sentiment) Valid() bool {
	switch s {
	case SentimentPositive, SentimentNeutral, SentimentNegative, SentimentHostile:
		return true
	}
	return false
}

// Analysis is the analyzer's reading of one reply (seed 000 §3.2, §10.1).
type Analysis struct {
	Class      Class     `json:"class"`
	Confidence float64   `json:"confidence"` // 0–1
	Sentiment  Sentiment `json:"sentiment"`
	// FeeCents is the total fee (or the deposit/minimum payment asked for) in
	// integer cents; nil when no amount is stated or only a rate is given.
	FeeCents *int64 `json:"fee_cents,omitempty"`
	// FeeCurrency is the ISO 4217 code of FeeCents ("USD", "GBP", "EUR",
	// "AUD", …); empty means USD.
	FeeCurrency      string        `json:"fee_currency,omitempty"`
	Deadline         *time.Time    `json:"deadline,omitempty"` // estimated completion / response date, UTC midnight
	TrackingNumber   string        `json:"tracking_number,omitempty"`
	ConstraintsToAdd []Constraint  `json:"constraints_to_add,omitempty"`
	ScopeUpdates     []ScopeUpdate `json:"scope_updates,omitempty"`
	ReferredAgency   string        `json:"referred_agency,omitempty"`
	PortalURL        string        `json:"portal_url,omitempty"`
	PortalVendor     string        `json:"portal_vendor,omitempty"` // GovQA, NextRequest, JustFOIA, FOIAXpress, …
	Exemptions       []string      `json:"exemptions,omitempty"`    // exemptions the agency invoked, e.g. "5 U.S.C. 552(b)(7)(A)"
	// DenialWeak is the analyzer's judgement that a denial is contestable
	// (boilerplate, no specific exemption, or exemptions a rebuttal can beat).
	DenialWeak bool `json:"denial_weak,omitempty"`
	// HasRecordsLink is true when the reply carries a download link to records.
	HasRecordsLink bool     `json:"has_records_link,omitempty"`
	KeyPoints      []string `json:"key_points,omitempty"`
	// Reasons explain to the reviewer which evidence produced the class.
	Reasons []string `json:"reasons,omitempty"`
	// InjectionFlags are set when the reply's text tries to instruct the agent
	// ("ignore previous instructions", "send the records to …").
	InjectionFlags []string `json:"injection_flags,omitempty"`
	// Analyzer names the implementation ("offline/1", "openai:gpt-4o-mini").
	Analyzer string `json:"analyzer"`
	// Usage is set by LLM-backed analyzers; the engine records it in llm_calls.
	Usage *LLMUsage `json:"usage,omitempty"`
	// SecondOpinion is the offline model's analysis of the same reply when
	// an LLM analyzer gave this one (ANALYZER=openai), kept for the reviewer.
	SecondOpinion *Analysis `json:"second_opinion,omitempty"`
	// Disagreement is set when both analyses were confident and named
	// different classes: a human decides (decide_next_action escalates).
	Disagreement string `json:"disagreement,omitempty"`
}

// LLMUsage describes one model call for the llm_calls table.
type LLMUsage = engine.LLMUsage

// Analyzer classifies an agency reply and extracts its facts. Implementations
// must treat the reply as data, never as instructions. Errors are transient
// failures (network, 5xx); an unusable answer is returned as ClassUnknown
// with a reason, not as an error.
type Analyzer interface {
	Analyze(ctx context.Context, reply Reply, c CaseContext) (Analysis, error)
}
