package workflow

import "time"

// CaseState is the typed state of a FOIA case run, checkpointed as JSONB after
// every step (seed 000 §2.1, kept small: ids and facts, not whole rows).
type CaseState struct {
	CaseID           int64         `json:"case_id"`
	Trigger          string        `json:"trigger"`
	TriggerKey       string        `json:"trigger_key"`
	TriggerMessageID *int64        `json:"trigger_message_id,omitempty"`
	AutopilotMode    AutopilotMode `json:"autopilot_mode,omitempty"`
	// SenderUnverified is set when the triggering reply's sender is not on
	// the agency's allowlist: the run neither supersedes pending proposals
	// nor updates the case, and always parks at a human gate.
	SenderUnverified bool `json:"sender_unverified,omitempty"`

	Analysis       *Analysis `json:"analysis,omitempty"`
	HasAttachments bool      `json:"has_attachments,omitempty"`
	// ReplyLinks are the http(s) links of the triggering reply (at most
	// maxRecordLinks), recorded as retrieval tasks when it delivers records.
	ReplyLinks  []string     `json:"reply_links,omitempty"`
	Constraints []Constraint `json:"constraints,omitempty"`
	ScopeItems  []ScopeItem  `json:"scope_items,omitempty"`

	Decision *RouteDecision `json:"decision,omitempty"`
	Draft    *Draft         `json:"draft,omitempty"`
	Safety   *SafetyResult  `json:"safety,omitempty"`

	ProposalID      int64  `json:"proposal_id,omitempty"`
	ProposalKey     string `json:"proposal_key,omitempty"`
	ProposalVersion int    `json:"proposal_version,omitempty"`
	AdjustCount     int    `json:"adjust_count,omitempty"`

	// Human is the reviewer decision applied on resume.
	Human *HumanDecision `json:"human,omitempty"`

	// Dismissed is set when the reviewer dismissed the proposal.
	Dismissed    bool   `json:"dismissed,omitempty"`
	ExecutionKey string `json:"execution_key,omitempty"`
	Executed     bool   `json:"executed,omitempty"`
	// CaseStatus is the status commit_state writes.
	CaseStatus string   `json:"case_status,omitempty"`
	Logs       []string `json:"logs,omitempty"`
}

// HumanDecision is a reviewer's decision at a gate (seed 000 §6.1).
type HumanDecision struct {
	DecisionID  int64     `json:"decision_id"`
	Action      string    `json:"action"` // APPROVE | EDIT | ADJUST | DISMISS | WITHDRAW
	Version     int       `json:"version"`
	Instruction string    `json:"instruction,omitempty"`
	Subject     string    `json:"subject,omitempty"`
	BodyText    string    `json:"body_text,omitempty"`
	Actor       string    `json:"actor"`
	At          time.Time `json:"at"`
}

// Decision actions.
const (
	DecisionApprove  = "APPROVE"
	DecisionEdit     = "EDIT"
	DecisionAdjust   = "ADJUST"
	DecisionDismiss  = "DISMISS"
	DecisionWithdraw = "WITHDRAW"
)

// ValidDecisionAction reports whether a is a known decision action.
func ValidDecisionAction(a string) bool {
	switch a {
	case DecisionApprove, DecisionEdit, DecisionAdjust, DecisionDismiss, DecisionWithdraw:
		return true
	}
	return false
}

// GatePayload is the interrupt payload of a parked run (seed 000 §3.7).
type GatePayload struct {
	Type        string      `json:"type"` // HUMAN_APPROVAL
	CaseID      int64       `json:"case_id"`
	ProposalID  int64       `json:"proposal_id"`
	ProposalKey string      `json:"proposal_key"`
	Version     int         `json:"version"`
	Action      ActionType  `json:"action"`
	PauseReason string      `json:"pause_reason"`
	Options     []string    `json:"options"`
	Summary     GateSummary `json:"summary"`
}

// GateSummary is what the reviewer sees first.
type GateSummary struct {
	Subject   string   `json:"subject"`
	Reasoning []string `json:"reasoning"`
	RiskFlags []string `json:"risk_flags"`
	Warnings  []string `json:"warnings"`
	Class     Class    `json:"class,omitempty"`
	FeeCents  *int64   `json:"fee_cents,omitempty"`
}
