package api

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/store/storetest"
	"github.com/foiaflow/foiaflow/workflow"
)

// TestForkRunIsAdminOnlyAndOnlyProposes: an admin forks a finished AUTO
// run from its draft_response step (with an edited subject); the replay is
// run by the worker, parks its proposal (pause REPLAY) and sends nothing;
// the case's agent-state lists it. Reviewers may not fork, and bad requests
// get their own codes.
func TestForkRunIsAdminOnlyAndOnlyProposes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	sender := e.startWorker()
	body := validCase()
	body["send_initial_request"], body["autopilot_mode"] = true, "AUTO"
	var created createdCase
	e.req("POST", "/v1/cases", e.reviewerKey, body).expect(http.StatusCreated, "").decode(&created)
	caseID, runID := created.Case.CaseID, *created.RunID
	statePath := "/v1/cases/" + itoa(caseID) + "/agent-state"
	var gate workflow.GatePayload
	storetest.Eventually(t, 15*time.Second, "initial request parked", func() bool {
		var st AgentState
		e.req("GET", statePath, e.reviewerKey, nil).expect(200, "").decode(&st)
		return st.IsInterrupted && jsonUnmarshal(st.Interrupt, &gate) == nil && gate.ProposalID != 0
	})
	e.decide(caseID, gate.ProposalID, "approve", map[string]any{"version": gate.Version}, "approve-1").expect(202, "")
	storetest.Eventually(t, 15*time.Second, "run completed", func() bool {
		return e.db.String(t, `SELECT status FROM runs WHERE id = $1`, runID) == string(workflow.RunCompleted)
	})
	storetest.Eventually(t, 15*time.Second, "initial request emailed", func() bool { return len(sender.Sent()) == 1 })
	draftStep := int(e.count(`SELECT seq FROM run_steps WHERE run_id = $1 AND node = 'draft_response'`, runID))
	resumeStep := int(e.count(`SELECT seq FROM run_steps WHERE run_id = $1 AND node = 'resume'`, runID))

	path := "/v1/runs/" + itoa(runID) + "/fork"
	e.req("POST", path, e.reviewerKey, map[string]any{"step": draftStep}).expect(http.StatusForbidden, "forbidden")
	e.req("POST", "/v1/runs/999999/fork", testAdminKey, map[string]any{"step": 0}).expect(http.StatusNotFound, "run_not_found")
	e.req("POST", path, testAdminKey, map[string]any{}).expect(http.StatusBadRequest, "invalid_field")
	e.req("POST", path, testAdminKey, map[string]any{"step": 99}).expect(http.StatusUnprocessableEntity, "unknown_step")
	e.req("POST", path, testAdminKey, map[string]any{"step": resumeStep}).expect(http.StatusUnprocessableEntity, "step_not_forkable")
	e.req("POST", path, testAdminKey, map[string]any{"step": draftStep, "state": map[string]any{"human": nil}}).
		expect(http.StatusUnprocessableEntity, "invalid_state")
	if n := e.count(`SELECT count(*) FROM runs WHERE replay_of IS NOT NULL`); n != 0 {
		t.Fatalf("refused forks left %d runs", n)
	}

	// The draft is re-made by the drafter; an edited decision reasons differently.
	edit := map[string]any{"decision": map[string]any{"action": "SEND_INITIAL_REQUEST", "auto": true, "reasons": []string{"edited in a replay"}}}
	var fork forkedRun
	e.req("POST", path, testAdminKey, map[string]any{"step": draftStep, "state": edit}).expect(http.StatusCreated, "").decode(&fork)
	if fork.ReplayOf != runID || fork.CaseID != caseID || fork.NextNode != workflow.NodeDraftResponse || !strings.HasPrefix(fork.TriggerKey, "replay:") {
		t.Fatalf("fork %+v", fork)
	}
	var st AgentState
	storetest.Eventually(t, 15*time.Second, "replay parked", func() bool {
		e.req("GET", statePath, e.reviewerKey, nil).expect(200, "").decode(&st)
		return st.Run != nil && st.Run.ID == fork.RunID && st.IsInterrupted && jsonUnmarshal(st.Interrupt, &gate) == nil
	})
	if gate.PauseReason != workflow.PauseReplay || len(gate.Summary.Reasoning) == 0 || gate.Summary.Reasoning[0] != "edited in a replay" {
		t.Fatalf("replay gate %+v, want pause REPLAY with the edited reasons", gate)
	}
	if len(st.Forks) != 1 || st.Forks[0].RunID != fork.RunID || st.Forks[0].ReplayOf != runID || st.Forks[0].ReplayStep != draftStep ||
		st.Forks[0].ProposalID == nil || *st.Forks[0].ProposalID != gate.ProposalID {
		t.Fatalf("agent-state forks %+v", st.Forks)
	}
	if len(sender.Sent()) != 1 || e.count(`SELECT count(*) FROM email_sends`) != 1 {
		t.Fatalf("the replay sent: %d emails, %d sends", len(sender.Sent()), e.count(`SELECT count(*) FROM email_sends`))
	}
}
