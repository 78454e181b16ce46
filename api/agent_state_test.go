package api

import (
	"testing"
)

func TestAgentState(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.newCase()
	var st AgentState
	e.req("GET", "/v1/cases/"+itoa(c)+"/agent-state", e.reviewerKey, nil).expect(200, "").decode(&st)
	if st.Run != nil || st.IsInterrupted || string(st.Interrupt) != "null" || st.Steps == nil {
		t.Fatalf("no run: %+v", st)
	}
	p := e.pendingProposal(c, 1)
	e.db.Exec(t, `INSERT INTO run_steps (run_id, seq, node, outcome, next_node, started_at, finished_at)
		SELECT run_id, s, 'node' || s, 'next', 'node' || (s + 1), now(), now()
		FROM proposals, generate_series(0, 24) s WHERE id = $1`, p)
	e.req("GET", "/v1/cases/"+itoa(c)+"/agent-state", e.reviewerKey, nil).expect(200, "").decode(&st)
	if st.Run == nil || st.Run.Status != "parked" || st.Run.StepSeq != 6 || st.Run.NextNode != "gate_or_execute" || !st.IsInterrupted {
		t.Fatalf("parked: %+v", st.Run)
	}
	var gate struct {
		ProposalID int64 `json:"proposal_id"`
		Version    int   `json:"version"`
	}
	if err := jsonUnmarshal(st.Interrupt, &gate); err != nil || gate.ProposalID != p || gate.Version != 1 {
		t.Fatalf("interrupt %s", st.Interrupt)
	}
	if len(st.Steps) != lastSteps || st.Steps[0].Seq != 5 || st.Steps[lastSteps-1].Seq != 24 {
		t.Fatalf("steps %d first %+v", len(st.Steps), st.Steps[0])
	}
	e.req("GET", "/v1/cases/999999/agent-state", e.reviewerKey, nil).expect(404, "case_not_found")
}
