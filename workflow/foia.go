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

// Constraint is a persisted fact about a case learned from agency replies
// (seed 000 §10.1).
type Constraint string

// Constraints.
const (
	ConstraintBWCExempt           Constraint = "BWC_EXEMPT"
	ConstraintFeeRequired         Constraint = "FEE_REQUIRED"
	ConstraintIDRequired          Constraint = "ID_REQUIRED"
	ConstraintInvestigationActive Constraint = "INVESTIGATION_ACTIVE"
	ConstraintPrivacyExemption    Constraint = "PRIVACY_EXEMPTION"
	ConstraintRetentionExpired    Constraint = "RETENTION_EXPIRED"
	ConstraintWrongAgency         Constraint = "WRONG_AGENCY"
)

// AllConstraints lists every known constraint.
var AllConstraints = []Constraint{
	ConstraintBWCExempt, ConstraintFeeRequired, ConstraintIDRequired,
	ConstraintInvestigationActive, ConstraintPrivacyExemption,
	ConstraintRetentionExpired, ConstraintWrongAgency,
}

// Valid reports whether c is a known constraint.
func (c Constraint) Valid() bool {
	for _, k := range AllConstraints {
		if c == k {
			return true
		}
	}
	return false
}

// ScopeStatus is the state of one requested record (scope item).
type ScopeStatus string

// Scope item statuses (seed 000 §10.1).
const (
	ScopePending   ScopeStatus = "PENDING"
	ScopeExempt    ScopeStatus = "EXEMPT"
	ScopeDenied    ScopeStatus = "DENIED"
	ScopeDelivered ScopeStatus = "DELIVERED"
	ScopePartial   ScopeStatus = "PARTIAL"
)

// ScopeItem is one requested record and its status.
type ScopeItem struct {
	Item   string      `json:"item"`
	Status ScopeStatus `json:"status"`
	Reason string      `json:"reason,omitempty"`
}

// ActionType is what decide_next_action chose (seed 000 §3.4).
type ActionType string

// Actions. NONE records facts only and creates no proposal.
const (
	ActionNone              ActionType = "NONE"
	ActionSendInitial       ActionType = "SEND_INITIAL_REQUEST"
	ActionSendFollowup      ActionType = "SEND_FOLLOWUP"
	ActionSendRebuttal      ActionType = "SEND_REBUTTAL"
	ActionSendClarification ActionType = "SEND_CLARIFICATION"
	ActionApproveFee        ActionType = "APPROVE_FEE"
	ActionEscalate          ActionType = "ESCALATE"
	ActionSubmitPortal      ActionType = "SUBMIT_PORTAL"
	ActionRefile            ActionType = "REFILE"
	ActionCloseCompleted    ActionType = "CLOSE_COMPLETED"
	ActionCloseNoRecords    ActionType = "CLOSE_NO_RECORDS"

	// ActionSendAppeal files the administrative appeal the statute provides
	// after a denial (docs/letters.md): emailed to the agency when the
	// appeal goes to the agency, a human task when it goes to an outside
	// body. Always gated.
	ActionSendAppeal ActionType = "SEND_APPEAL"
)

// SendsEmail reports whether executing the action emails the agency.
func (a ActionType) SendsEmail() bool {
	switch a {
	case ActionSendInitial, ActionSendFollowup, ActionSendRebuttal, ActionSendClarification, ActionApproveFee, ActionSendAppeal:
		return true
	}
	return false
}

// AutopilotMode is how much a case may do without a human.
type AutopilotMode string

// Autopilot modes: AUTO executes what the routing table allows, SUPERVISED
// gates every proposal, MANUAL gates everything including record-only steps.
const (
	AutopilotAuto       AutopilotMode = "AUTO"
	AutopilotSupervised AutopilotMode = "SUPERVISED"
	AutopilotManual     AutopilotMode = "MANUAL"
)

// Valid reports whether m is a known mode.
func (m AutopilotMode) Valid() bool {
	return m == AutopilotAuto || m == AutopilotSupervised || m == AutopilotManual
}

// Attachment is the metadata of one attachment of a message; its bytes are
// in the message store (blobstore) under SHA256.
type Attachment struct {
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	SizeBytes   int64  `json:"size_bytes"`
	SHA256      string `json:"sha256,omitempty"` // lowercase hex SHA-256 of the bytes
}

// Reply is an inbound agency message as the analyzer sees it.
type Reply struct {
	MessageID   string       `json:"message_id"`
	From        string       `json:"from"`
	Subject     string       `json:"subject"`
	Text        string       `json:"text"`
	HTML        string       `json:"html,omitempty"`
	Attachments []Attachment `json:"attachments,omitempty"`
	ReceivedAt  time.Time    `json:"received_at"`
	// SenderUnverified: the reply proved its thread (reply address or
	// In-Reply-To) but its sender is not on the agency's allowlist. Nothing
	// it says is acted on without a human (issue 10).
	SenderUnverified bool `json:"sender_unverified,omitempty"`
}

// AppealKind says where a jurisdiction's statute sends an appeal of a
// denial (dataset/jurisdiction-appeals.csv).
type AppealKind string

// Appeal kinds.
const (
	AppealToAgency   AppealKind = "agency"   // the agency's head or appeals officer: emailed to the agency
	AppealToExternal AppealKind = "external" // an outside body (attorney general, counselor, commission): a human files it
	AppealNone       AppealKind = "none"     // the statute provides no administrative appeal
)

// AppealTerms is the administrative appeal of a case's jurisdiction. Body
// decides it; Citation is the section granting it, as written in letters.
// FileDays is the period to file after the denial and DecideDays the period
// the body has to decide, each in business (working) days when the flag is
// set, else calendar days; 0 means the statute sets no period (none is
// invented).
type AppealTerms struct {
	Kind               AppealKind `json:"kind"`
	Body               string     `json:"body,omitempty"`
	Citation           string     `json:"citation,omitempty"`
	FileDays           int        `json:"file_days,omitempty"`
	FileBusinessDays   bool       `json:"file_business_days,omitempty"`
	DecideDays         int        `json:"decide_days,omitempty"`
	DecideBusinessDays bool       `json:"decide_business_days,omitempty"`
}

// Available reports whether the statute provides an administrative appeal.
func (t AppealTerms) Available() bool {
	return t.Kind == AppealToAgency || t.Kind == AppealToExternal
}

// CaseContext is what the analyzer and drafter know about a case.
type CaseContext struct {
	CaseID      int64  `json:"case_id"`
	AgencyName  string `json:"agency_name"`
	AgencyEmail string `json:"agency_email"`
	// AgencyTimezone is the agency's IANA zone: letters state dates in it.
	AgencyTimezone string `json:"agency_timezone"`
	Jurisdiction   string `json:"jurisdiction"` // abbrev, e.g. "US", "TX"
	// Statute is the citation of the public records law as written in
	// letters ("the Illinois Freedom of Information Act, 5 ILCS 140"); empty
	// when unknown. Research notes never go here.
	Statute          string        `json:"statute"`
	Subject          string        `json:"subject"`
	RequestedRecords []string      `json:"requested_records"`
	ScopeItems       []ScopeItem   `json:"scope_items"`
	Constraints      []Constraint  `json:"constraints"`
	TrackingNumber   string        `json:"tracking_number,omitempty"`
	PortalURL        string        `json:"portal_url,omitempty"`
	RequesterName    string        `json:"requester_name,omitempty"`
	SentAt           *time.Time    `json:"sent_at,omitempty"` // when the request went out (UTC)
	FeeCents         *int64        `json:"fee_cents,omitempty"`
	AutopilotMode    AutopilotMode `json:"autopilot_mode"`
	// Appeal is the jurisdiction's administrative appeal.
	Appeal AppealTerms `json:"appeal"`
	// DeniedAt is when the adverse determination (denial, or partial
	// delivery withholding records) that opened the appeal window arrived;
	// AppealDeadline the last moment to file (nil: no statutory period);
	// AppealedAt when the appeal was filed, after which the case runs on the
	// appeal's own clock. UTC.
	DeniedAt       *time.Time `json:"denied_at,omitempty"`
	AppealDeadline *time.Time `json:"appeal_deadline,omitempty"`
	AppealedAt     *time.Time `json:"appealed_at,omitempty"`
}

// ScopeUpdate changes the status of one scope item.
type ScopeUpdate = ScopeItem

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

// DraftRequest asks the drafter for one outbound message.
type DraftRequest struct {
	Action   ActionType  `json:"action"`
	Case     CaseContext `json:"case"`
	Analysis *Analysis   `json:"analysis,omitempty"` // of the triggering reply; nil for timer runs
	// Instruction is the reviewer's ADJUST instruction, empty otherwise.
	Instruction string `json:"instruction,omitempty"`
	// PreviousText is the version being adjusted, empty otherwise.
	PreviousText string `json:"previous_text,omitempty"`
	// DaysElapsed since the request was sent (follow-ups).
	DaysElapsed int `json:"days_elapsed"`
	// FollowupNumber is 1 for the first follow-up.
	FollowupNumber int `json:"followup_number"`
	// DueAt is the case's current due date (the request's, or the appeal's
	// once it went out), nil when the clock is stopped.
	DueAt *time.Time `json:"due_at,omitempty"`
	// Now is the drafting time (UTC), injected so drafts are reproducible.
	Now time.Time `json:"now"`
}

// Draft is a drafted message. HTML is sanitized.
type Draft struct {
	Subject string `json:"subject"`
	Text    string `json:"text"`
	HTML    string `json:"html"`
	// HumanTask is true for actions a person performs outside email
	// (portal submission, refiling): Text then holds the instructions.
	HumanTask bool `json:"human_task,omitempty"`
	// NeedsEdit is set when the drafter could not apply a reviewer's ADJUST
	// instruction: it says what was not understood and asks for an edited
	// text. The text is then the version being adjusted, unchanged, and
	// safety_check keeps the proposal gated (RiskNeedsEdit).
	NeedsEdit string    `json:"needs_edit,omitempty"`
	Drafter   string    `json:"drafter"`
	Usage     *LLMUsage `json:"usage,omitempty"`
}

// Drafter writes the message for an action.
type Drafter interface {
	Draft(ctx context.Context, req DraftRequest) (Draft, error)
}
