package workflow

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
