package workflow

// stepMessages say, for a reviewer watching a case live, what each node of
// the FOIA graph did (the status events of GET /v1/cases/{id}/events).
var stepMessages = map[string]string{
	NodeLoadContext:       "Loading the case…",
	NodeClassifyInbound:   "Reading the agency's reply…",
	NodeUpdateConstraints: "Recording fees, deadlines and scope from the reply…",
	NodeDecideNextAction:  "Deciding what to do next…",
	NodeDraftResponse:     "Drafting the letter…",
	NodeSafetyCheck:       "Checking the draft for risks…",
	NodeGateOrExecute:     "Deciding whether a reviewer must approve…",
	NodeExecuteAction:     "Carrying out the approved action…",
	NodeCommitState:       "Updating the case's deadlines and follow-ups…",
	NodeResume:            "Applying the reviewer's decision…",
}

// StepMessage is the reviewer-facing sentence for a node of the FOIA graph,
// or "Working…" for a node it does not know.
func StepMessage(node string) string {
	if m, ok := stepMessages[node]; ok {
		return m
	}
	return "Working…"
}
