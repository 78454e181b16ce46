package workflow

import "time"

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
	Statute          string       `json:"statute"`
	Subject          string       `json:"subject"`
	RequestedRecords []string     `json:"requested_records"`
	ScopeItems       []ScopeItem  `json:"scope_items"`
	Constraints      []Constraint `json:"constraints"`
	TrackingNumber   string       `json:"tracking_number,omitempty"`
	PortalURL        string       `json:"portal_url,omitempty"`
	RequesterName    string       `json:"requester_name,omitempty"`
	SentAt           *time.Time   `json:"sent_at,omitempty"` // when the request went out (UTC)
	FeeCents         *int64       `json:"fee_cents,omitempty"`
	// FeeCurrency is the ISO 4217 code of FeeCents ("USD", "GBP", …).
	FeeCurrency   string        `json:"fee_currency,omitempty"`
	AutopilotMode AutopilotMode `json:"autopilot_mode"`
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
