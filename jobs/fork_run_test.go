package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

func (h *harness) useCases() *jobs.UseCases {
	return &jobs.UseCases{Store: h.st, Queues: h.queues, Dispatch: h.dispatch}
}

// stepOf returns the seq of the first step of run that ran node.
func (h *harness) stepOf(runID int64, node string) int {
	h.t.Helper()
	steps, err := h.st.RunSteps(context.Background(), runID)
	if err != nil {
		h.t.Fatal(err)
	}
	for _, s := range steps {
		if s.Node == node {
			return s.Seq
		}
	}
	h.t.Fatalf("run %d never ran %s", runID, node)
	return -1
}

// Time travel: in AUTO mode a $30 fee is approved and emailed without a
// human. A replay forked from decide_next_action makes the same decision but
// parks it as a proposal (pause REPLAY), sends nothing and leaves the case
// as it was; only a reviewer's APPROVE of the replay's proposal sends.
func TestForkFromEarlierStepOnlyProposes(t *testing.T) {
	t.Parallel()
	h := newHarness(t, feeQuote(3000)) // $30 ≤ $50: auto-approved
	h.startWorker("w", h.handlers("w"))
	caseID := h.newCase(workflow.AutopilotAuto, "")
	parent := h.deliver(caseID, "The fee is $30.", false)
	h.waitRun(parent.ID, workflow.RunCompleted)
	storetestEventuallySent(t, h, 1)
	caseBefore := h.db.String(t, `SELECT status || ' ' || followup_count || ' ' || coalesce(next_followup_at::text, '') FROM cases WHERE id=$1`, caseID)
	analyses := h.db.Int(t, `SELECT count(*) FROM response_analyses WHERE case_id=$1`, caseID)

	step := h.stepOf(parent.ID, workflow.NodeDecideNextAction)
	fork, err := h.useCases().ForkRun(context.Background(), jobs.ForkRequest{RunID: parent.ID, Step: step, Actor: "admin@newsroom.test"})
	if err != nil {
		t.Fatalf("fork: %v", err)
	}
	if fork.CaseID != caseID || fork.NextNode != workflow.NodeDecideNextAction || fork.ID == parent.ID {
		t.Fatalf("fork = %+v, want a new run of case %d at %s", fork, caseID, workflow.NodeDecideNextAction)
	}
	if got := h.db.Int(t, `SELECT replay_of FROM runs WHERE id=$1`, fork.ID); got != parent.ID {
		t.Fatalf("replay_of = %d, want %d", got, parent.ID)
	}
	parked := h.waitRun(fork.ID, workflow.RunParked)
	g := gate(t, parked)
	if g.PauseReason != workflow.PauseReplay || g.Action != workflow.ActionApproveFee {
		t.Fatalf("gate = %+v, want APPROVE_FEE paused REPLAY", g)
	}
	if !strings.Contains(g.ProposalKey, "replay:") {
		t.Fatalf("replay proposal key %q is the parent's", g.ProposalKey)
	}
	if n := h.db.Int(t, `SELECT count(*) FROM email_sends WHERE case_id=$1`, caseID); n != 1 {
		t.Fatalf("email sends after the replay = %d, want the parent's 1", n)
	}
	if got := h.db.String(t, `SELECT status || ' ' || followup_count || ' ' || coalesce(next_followup_at::text, '') FROM cases WHERE id=$1`, caseID); got != caseBefore {
		t.Fatalf("case changed by the replay: %q, was %q", got, caseBefore)
	}
	if n := h.db.Int(t, `SELECT count(*) FROM response_analyses WHERE case_id=$1`, caseID); n != analyses {
		t.Fatalf("replay from decide_next_action re-analysed the reply (%d analyses, was %d)", n, analyses)
	}
	if s := h.db.String(t, `SELECT status FROM proposals WHERE id=$1`, g.ProposalID); s != workflow.ProposalPending {
		t.Fatalf("replay proposal %s, want PENDING_APPROVAL", s)
	}

	// The email outbox refuses the replay's proposal without a decision,
	// whatever a step asks.
	_, err = h.st.InTx(context.Background(), func(tx *store.Tx) error {
		_, err := tx.InsertEmailSend(context.Background(), workflow.EmailSend{ExecutionKey: workflow.ExecutionKey(g.ProposalKey, 1),
			ProposalID: g.ProposalID, CaseID: caseID, MessageID: "<forged@foia.test>", To: []string{"records@springfield.gov"}, Automatic: true})
		return err
	})
	if !errors.Is(err, store.ErrReplayNeedsHuman) {
		t.Fatalf("email of an undecided replay proposal: err = %v, want ErrReplayNeedsHuman", err)
	}

	forks, err := h.st.ForksOfCase(context.Background(), caseID)
	if err != nil || len(forks) != 1 || forks[0].RunID != fork.ID || forks[0].ReplayStep != step || forks[0].ProposalID == nil || *forks[0].ProposalID != g.ProposalID {
		t.Fatalf("forks of case = %+v, %v", forks, err)
	}

	h.decide(caseID, g.ProposalID, g.Version, workflow.DecisionApprove, "", "")
	h.waitRun(fork.ID, workflow.RunCompleted)
	storetestEventuallySent(t, h, 2)
}

// A replay starting at execute_action (the parent's proposal is not
// inherited) proposes instead of executing; an edited state changes what
// it proposes.
func TestForkAtExecuteWithEditedStateProposesEdit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, feeQuote(3000))
	h.startWorker("w", h.handlers("w"))
	caseID := h.newCase(workflow.AutopilotAuto, "")
	parent := h.deliver(caseID, "The fee is $30.", false)
	h.waitRun(parent.ID, workflow.RunCompleted)
	storetestEventuallySent(t, h, 1)

	step := h.stepOf(parent.ID, workflow.NodeExecuteAction)
	edit := json.RawMessage(`{"draft":{"subject":"RE: edited","text":"We accept the fee of $30.00. Edited in a replay.","html":"","drafter":"admin"}}`)
	fork, err := h.useCases().ForkRun(context.Background(), jobs.ForkRequest{RunID: parent.ID, Step: step, State: edit, Actor: "admin@newsroom.test"})
	if err != nil {
		t.Fatalf("fork: %v", err)
	}
	g := gate(t, h.waitRun(fork.ID, workflow.RunParked))
	if g.PauseReason != workflow.PauseReplay || g.Summary.Subject != "RE: edited" {
		t.Fatalf("gate = %+v, want the edited draft paused REPLAY", g)
	}
	if n := h.db.Int(t, `SELECT count(*) FROM email_sends WHERE case_id=$1`, caseID); n != 1 {
		t.Fatalf("email sends = %d, want the parent's 1", n)
	}
	if n := h.db.Int(t, `SELECT count(*) FROM proposals WHERE case_id=$1 AND status='EXECUTED'`, caseID); n != 1 {
		t.Fatalf("executed proposals = %d, want the parent's 1", n)
	}
}

// Bad fork requests are refused with their own errors and leave no run.
func TestForkRefusesUnknownStepsAndBadState(t *testing.T) {
	t.Parallel()
	h := newHarness(t, feeQuote(23750)) // over the limit: parks
	h.startWorker("w", h.handlers("w"))
	caseID := h.newCase(workflow.AutopilotAuto, "")
	parent := h.deliver(caseID, "The fee is $237.50.", false)
	g := gate(t, h.waitRun(parent.ID, workflow.RunParked))
	h.decide(caseID, g.ProposalID, g.Version, workflow.DecisionApprove, "", "")
	h.waitRun(parent.ID, workflow.RunCompleted)
	uc := h.useCases()
	ctx := context.Background()
	cases := []struct {
		name string
		req  jobs.ForkRequest
		want error
	}{
		{"no such run", jobs.ForkRequest{RunID: parent.ID + 1000, Step: 0}, store.ErrNotFound},
		{"step never reached", jobs.ForkRequest{RunID: parent.ID, Step: 40}, jobs.ErrUnknownStep},
		{"negative step", jobs.ForkRequest{RunID: parent.ID, Step: -1}, jobs.ErrUnknownStep},
		{"resume step", jobs.ForkRequest{RunID: parent.ID, Step: h.stepOf(parent.ID, workflow.NodeResume)}, jobs.ErrStepNotForkable},
		{"read-only field", jobs.ForkRequest{RunID: parent.ID, Step: 3, State: json.RawMessage(`{"proposal_id":1}`)}, workflow.ErrForkState},
		{"unknown field", jobs.ForkRequest{RunID: parent.ID, Step: 3, State: json.RawMessage(`{"send_now":true}`)}, workflow.ErrForkState},
		{"not an object", jobs.ForkRequest{RunID: parent.ID, Step: 3, State: json.RawMessage(`[1]`)}, workflow.ErrForkState},
		{"bad class", jobs.ForkRequest{RunID: parent.ID, Step: 3, State: json.RawMessage(`{"analysis":{"class":"SEND_IT"}}`)}, workflow.ErrForkState},
	}
	for _, c := range cases {
		if _, err := uc.ForkRun(ctx, c.req); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
	if n := h.db.Int(t, `SELECT count(*) FROM runs WHERE replay_of IS NOT NULL`); n != 0 {
		t.Fatalf("refused forks left %d runs", n)
	}
}
