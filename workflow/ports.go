package workflow

import (
	"context"
	"time"
)

// Case statuses (cases.status).
const (
	CaseAwaitingResponse  = "awaiting_response"
	CaseAwaitingRequester = "awaiting_requester" // the clock is tolled: we owe a fee or a clarification
	CaseNeedsReview       = "needs_review"
	CaseHumanTask         = "human_task"
	CaseCompleted         = "completed"
	CaseClosedNoRecords   = "closed_no_records"
	CaseWithdrawn         = "withdrawn"
	CaseEscalated         = "escalated"
)

// CaseClosed reports whether a case status is final.
func CaseClosed(status string) bool {
	return status == CaseCompleted || status == CaseClosedNoRecords || status == CaseWithdrawn
}

// Proposal statuses (proposals.status).
const (
	ProposalPending    = "PENDING_APPROVAL"
	ProposalApproved   = "APPROVED"
	ProposalExecuted   = "EXECUTED"
	ProposalSuperseded = "SUPERSEDED"
	ProposalDismissed  = "DISMISSED"
	ProposalWithdrawn  = "WITHDRAWN"
	ProposalRejected   = "REJECTED"
	ProposalSkipped    = "SKIPPED"
)

// Version sources (proposal_versions.source, seed 004).
const (
	SourceAIGenerated   = "ai_generated"
	SourceAIRegenerated = "ai_regenerated"
	SourceHumanEdited   = "human_edited"
	SourcePromoted      = "promoted" // a copy of an earlier version (ProposalUpsert.PromotedFrom)
)

// Run triggers (runs.trigger).
const (
	TriggerAgencyReply    = "agency_reply"
	TriggerFollowup       = "time_based_followup"
	TriggerInitialRequest = "initial_request"
	TriggerManualReview   = "manual_review"
)

// CaseRecord is a case as the graph loads it.
type CaseRecord struct {
	CaseContext
	Status              string     `json:"status"`
	Paused              bool       `json:"paused"`
	ReplyToken          string     `json:"reply_token"`
	DueAt               *time.Time `json:"due_at,omitempty"`
	NextFollowupAt      *time.Time `json:"next_followup_at,omitempty"`
	FollowupCount       int        `json:"followup_count"`
	EstimatedCompletion *time.Time `json:"estimated_completion,omitempty"`
	TolledSince         *time.Time `json:"tolled_since,omitempty"`
	TolledDays          int        `json:"tolled_days"`
	// LastInboundMessageID is the RFC 5322 Message-ID of the agency's latest
	// message, for In-Reply-To; References lists the thread oldest first.
	LastInboundMessageID string   `json:"last_inbound_message_id,omitempty"`
	References           []string `json:"references,omitempty"`
}

// ProposalRecord is a stored proposal with its current version.
type ProposalRecord struct {
	ID              int64      `json:"id"`
	CaseID          int64      `json:"case_id"`
	RunID           int64      `json:"run_id"`
	Key             string     `json:"proposal_key"`
	Action          ActionType `json:"action_type"`
	Status          string     `json:"status"`
	CurrentVersion  int        `json:"current_version"`
	AdjustmentCount int        `json:"adjustment_count"`
	ExecutionKey    string     `json:"execution_key,omitempty"`
	HumanTask       bool       `json:"human_task"`
	FeeCents        *int64     `json:"fee_cents,omitempty"`
	FeeCurrency     string     `json:"fee_currency,omitempty"` // ISO 4217 of FeeCents
	Subject         string     `json:"subject"`
	BodyText        string     `json:"body_text"`
	BodyHTML        string     `json:"body_html"`
}

// CaseReader is what the graph reads outside transactions. Missing rows
// return an error wrapping store.ErrNotFound.
type CaseReader interface {
	LoadCase(ctx context.Context, caseID int64) (CaseRecord, error)
	LoadMessage(ctx context.Context, messageID int64) (Reply, error)
	LoadProposal(ctx context.Context, proposalID int64) (ProposalRecord, error)
	// RecentAutoSends counts the case's emails queued without a human
	// decision (EmailSend.Automatic) in the last window, by the database
	// clock (the AUTO_SENDS_PER_CASE_PER_DAY cap).
	RecentAutoSends(ctx context.Context, caseID int64, window time.Duration) (int, error)
	// EmailFailed reports whether the send of an execution key was given up
	// for good (commit_state escalates the case then).
	EmailFailed(ctx context.Context, executionKey string) (bool, error)
}

// ProposalUpsert is what the gate writes: the proposal keyed by Key and its
// version. A new key inserts version 1; an existing key in the same run gets
// version Version when Version is greater than its current one.
type ProposalUpsert struct {
	CaseID           int64
	RunID            int64
	Key              string
	Action           ActionType
	TriggerMessageID *int64
	Status           string
	Reasoning        []string
	Confidence       float64
	RiskFlags        []string
	Warnings         []string
	PauseReason      string
	CanAutoExecute   bool
	HumanTask        bool
	FeeCents         *int64
	FeeCurrency      string // ISO 4217 of FeeCents; "" is USD
	Version          int
	VersionSource    string
	Feedback         string
	PromotedFrom     int // SourcePromoted: the version copied
	Author           string
	Subject          string
	BodyText         string
	BodyHTML         string
	AdjustmentCount  int
}

// CaseFacts are what update_constraints persists on the case.
type CaseFacts struct {
	Constraints         []Constraint
	ScopeItems          []ScopeItem
	TrackingNumber      string
	PortalURL           string
	FeeCents            *int64
	FeeCurrency         string // ISO 4217 of FeeCents; "" is USD
	EstimatedCompletion *time.Time
	// DeniedAt and AppealDeadline open the appeal window of an adverse
	// determination (nil leaves the stored value unchanged).
	DeniedAt       *time.Time
	AppealDeadline *time.Time
}

// EmailSend is the outbound email a step claims (I5).
type EmailSend struct {
	ExecutionKey string
	ProposalID   int64
	CaseID       int64
	MessageID    string
	From         string
	To           []string
	ReplyTo      string
	Subject      string
	Text         string
	HTML         string
	InReplyTo    string
	References   []string
	SendAfter    time.Time
	// Automatic is true when no human decided this send (autopilot): the
	// email carries Auto-Submitted: auto-generated (RFC 3834 §5) and counts
	// toward the per-case cap of automatic sends.
	Automatic bool
}

// CaseSchedule is the clock state commit_state writes (absolute values, never
// increments: the step is fenced, so a re-run cannot double-count).
type CaseSchedule struct {
	Status         string
	SentAt         *time.Time
	DueAt          *time.Time
	NextFollowupAt *time.Time
	FollowupCount  int
	LastFollowupAt *time.Time
	TolledSince    *time.Time
	TolledDays     int
	Closed         bool
	// AppealedAt is set when the appeal went out (nil leaves it unchanged).
	AppealedAt *time.Time
}

// CaseTx is what graph nodes write, inside the step's transaction.
type CaseTx interface {
	SaveAnalysis(ctx context.Context, caseID, messageID, runID int64, a Analysis) error
	UpdateCaseFacts(ctx context.Context, caseID int64, f CaseFacts) error
	UpsertProposal(ctx context.Context, p ProposalUpsert) (ProposalRecord, error)
	// SetProposalStatus moves a proposal to status; approvedBy is recorded
	// when status is APPROVED.
	SetProposalStatus(ctx context.Context, proposalID int64, status, approvedBy string) error
	// ClaimExecution marks an APPROVED proposal EXECUTED under executionKey.
	// It returns false when the proposal was already executed (nothing changes).
	ClaimExecution(ctx context.Context, proposalID int64, executionKey string) (bool, error)
	// QueueEmail inserts the email_sends row and its email:send outbox entry;
	// a second call with the same execution key does nothing.
	QueueEmail(ctx context.Context, e EmailSend) error
	SetCaseStatus(ctx context.Context, caseID int64, status string) error
	SaveSchedule(ctx context.Context, caseID int64, s CaseSchedule) error
	// SupersedePending marks pending proposals and parked runs of the case
	// older than runID superseded (a newer reply arrived).
	SupersedePending(ctx context.Context, caseID, beforeRunID int64) error
	// StartTolling stops the statutory clock from at, unless already stopped
	// (the case waits on us: a fee or a clarification is pending).
	StartTolling(ctx context.Context, caseID int64, at time.Time) error
	OpenEscalation(ctx context.Context, key string, caseID, runID int64, reason string) error
	// MarkDecisionApplied records that a reviewer decision took effect.
	MarkDecisionApplied(ctx context.Context, decisionID int64) error
	LogActivity(ctx context.Context, caseID, runID int64, kind, actor string, detail any) error
	// RecordDelivery records a RECORDS_READY or PARTIAL_DELIVERY reply: its
	// attachments are marked delivered by the run, each download link
	// becomes a pending retrieval task for a human (issue 11).
	RecordDelivery(ctx context.Context, d RecordDelivery) error
}

// RecordDelivery describes records an agency reply delivered.
type RecordDelivery struct {
	CaseID    int64
	MessageID int64 // messages.id of the reply
	RunID     int64
	Class     Class
	// Links are download links in the reply (portal links, "available
	// at …"); empty when the records came as attachments only.
	Links []string
	At    time.Time
}

// Planner is the statutory clock as the graph needs it (DESIGN.md "Clock").
type Planner interface {
	// Plan returns the due date and the next follow-up for a case given its
	// state after this run; Escalate is true once MaxFollowups is reached.
	Plan(in PlanInput) Plan
	// AppealDeadline returns the last moment (UTC) to file an appeal of a
	// denial received at deniedAt: terms.FileDays counted from the day after
	// the denial in the jurisdiction's business or calendar days, in the
	// agency's time zone, to the end of that day. It returns the zero time
	// when the statute sets no period.
	AppealDeadline(jurisdiction string, terms AppealTerms, deniedAt time.Time, timezone string) time.Time
}

// PlanInput describes the case for the clock. Times are UTC.
type PlanInput struct {
	Jurisdiction        string
	Portal              bool
	SentAt              time.Time
	Now                 time.Time
	FollowupCount       int // follow-ups already sent
	EstimatedCompletion *time.Time
	TolledDays          int
	Timezone            string
	// AppealedAt is set once the case's appeal went out: the due date is
	// then the appeal's decision date (Appeal.DecideDays from AppealedAt, or
	// the reasonable-time default when the statute sets none) and
	// FollowupCount counts the appeal's follow-ups.
	AppealedAt *time.Time
	Appeal     AppealTerms
}

// Plan is the clock's answer.
type Plan struct {
	DueAt          time.Time
	NextFollowupAt time.Time
	Escalate       bool
}

// Mailer addresses outbound mail for a case.
type Mailer interface {
	// From is our sender address; ReplyTo the case's reply address
	// requests+<token>@domain; MessageID derives the Message-ID from the
	// execution key (I4); SendAfter applies the send-time policy (agency
	// business hours, jitter derived from the execution key).
	From() string
	ReplyTo(token string) string
	MessageID(executionKey string) string
	SendAfter(now time.Time, executionKey, timezone string) time.Time
}
