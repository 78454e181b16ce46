package workflow

import (
	"context"
	"time"
)

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
