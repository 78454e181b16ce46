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
	// ReplayOf is the run this one was forked from (time travel, ForkState):
	// a replay proposes and executes nothing without a human decision.
	ReplayOf int64 `json:"replay_of,omitempty"`

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

	// Dismissed is set when the reviewer dismissed the proposal; Skipped
	// when the reviewer skipped it (a skipped follow-up counts as sent for
	// the schedule).
	Dismissed    bool   `json:"dismissed,omitempty"`
	Skipped      bool   `json:"skipped,omitempty"`
	ExecutionKey string `json:"execution_key,omitempty"`
	Executed     bool   `json:"executed,omitempty"`
	// CaseStatus is the status commit_state writes.
	CaseStatus string   `json:"case_status,omitempty"`
	Logs       []string `json:"logs,omitempty"`
}

// HumanDecision is a reviewer's decision at a gate (seed 000 §6.1).
type HumanDecision struct {
	DecisionID  int64  `json:"decision_id"`
	Action      string `json:"action"` // one of the Decision* actions
	Version     int    `json:"version"`
	Instruction string `json:"instruction,omitempty"`
	// Subject and BodyText are the reviewer's text (EDIT) or the text of
	// the promoted version (PROMOTE, with BodyHTML).
	Subject  string `json:"subject,omitempty"`
	BodyText string `json:"body_text,omitempty"`
	BodyHTML string `json:"body_html,omitempty"`
	// Reason is why the reviewer rejected the proposal (REJECT, optional).
	Reason string `json:"reason,omitempty"`
	// FromVersion is the earlier version a PROMOTE makes current.
	FromVersion int       `json:"from_version,omitempty"`
	Actor       string    `json:"actor"`
	At          time.Time `json:"at"`
}

// Decision actions (seed 000 §6.1, seed 004; docs/graph.md "Decisions").
const (
	DecisionApprove  = "APPROVE"  // execute the version shown
	DecisionEdit     = "EDIT"     // execute the reviewer's exact text as a new version
	DecisionAdjust   = "ADJUST"   // redraft with the reviewer's instruction, gate again
	DecisionPromote  = "PROMOTE"  // an earlier version becomes current (new number), gate again
	DecisionReject   = "REJECT"   // wrong proposal: nothing sent, the case escalates to a person
	DecisionSkip     = "SKIP"     // nothing sent this time, the case continues its schedule
	DecisionDismiss  = "DISMISS"  // nothing sent, the case waits; a dismissed follow-up is proposed again later
	DecisionWithdraw = "WITHDRAW" // the request is withdrawn
)

// DecisionActions lists every decision action, as offered at a gate.
var DecisionActions = []string{DecisionApprove, DecisionEdit, DecisionAdjust, DecisionPromote,
	DecisionReject, DecisionSkip, DecisionDismiss, DecisionWithdraw}

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
	// FeeCurrency is the ISO 4217 code of FeeCents.
	FeeCurrency string `json:"fee_currency,omitempty"`
}
