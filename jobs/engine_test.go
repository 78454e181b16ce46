package jobs_test

import (
	"context"
	"testing"

	"github.com/foiaflow/foiaflow/workflow"
)

// Done-when 1: a FEE_QUOTE over the threshold parks with one pending
// proposal; APPROVE sends exactly one email; the run completes and the step
// history shows every node.
func TestFeeQuoteParksApproveSendsOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t, feeQuote(23750)) // $237.50 > $50 auto limit
	h.startWorker("w1", h.handlers("w1"))
	caseID := h.newCase(workflow.AutopilotAuto, "")
	run := h.deliver(caseID, "The estimated fee for your request is $237.50.", false)

	parked := h.waitRun(run.ID, workflow.RunParked)
	g := gate(t, parked)
	if g.Action != workflow.ActionApproveFee || g.PauseReason != workflow.PauseFeeQuote || g.Version != 1 {
		t.Fatalf("gate = %+v, want APPROVE_FEE/FEE_QUOTE v1", g)
	}
	if n := h.db.Int(t, `SELECT count(*) FROM proposals WHERE case_id=$1 AND status='PENDING_APPROVAL'`, caseID); n != 1 {
		t.Fatalf("pending proposals = %d, want 1", n)
	}
	if s := h.db.String(t, `SELECT status FROM cases WHERE id=$1`, caseID); s != workflow.CaseNeedsReview {
		t.Fatalf("case status = %s, want needs_review", s)
	}
	if n := h.db.Int(t, `SELECT count(*) FROM email_sends`); n != 0 {
		t.Fatalf("email sends before approval = %d", n)
	}

	h.decide(caseID, g.ProposalID, g.Version, workflow.DecisionApprove, "", "")
	done := h.waitRun(run.ID, workflow.RunCompleted)
	storetestEventuallySent(t, h, 1)
	// The send is recorded right after the transport accepted it.
	waitFor(t, "email_sends row SENT", func() bool {
		return h.db.Int(t, `SELECT count(*) FROM email_sends WHERE case_id=$1 AND status='SENT'`, caseID) == 1
	})
	if n := h.db.Int(t, `SELECT count(*) FROM email_sends WHERE case_id=$1`, caseID); n != 1 {
		t.Fatalf("email rows = %d, want 1", n)
	}
	if s := h.db.String(t, `SELECT status FROM proposals WHERE id=$1`, g.ProposalID); s != workflow.ProposalExecuted {
		t.Fatalf("proposal status = %s", s)
	}
	m := h.sender.Sent()[0]
	wantID := testMailer{}.MessageID(workflow.ExecutionKey(g.ProposalKey, 1))
	if m.MessageID != wantID || m.To[0] != "records@springfield.gov" {
		t.Fatalf("sent %+v, want Message-ID %s to the agency", m, wantID)
	}
	steps, err := h.st.RunSteps(context.Background(), done.ID)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []string
	for _, s := range steps {
		nodes = append(nodes, s.Node)
	}
	want := []string{"load_context", "classify_inbound", "update_constraints", "decide_next_action", "draft_response",
		"safety_check", "gate_or_execute", "resume", "execute_action", "commit_state"}
	if len(nodes) != len(want) {
		t.Fatalf("step history %v, want %v", nodes, want)
	}
	for i := range want {
		if nodes[i] != want[i] {
			t.Fatalf("step history %v, want %v", nodes, want)
		}
	}
	if c := h.db.String(t, `SELECT array_to_string(constraints, ',') FROM cases WHERE id=$1`, caseID); c != "FEE_REQUIRED" {
		t.Fatalf("constraints = %q", c)
	}
}

func storetestEventuallySent(t *testing.T, h *harness, n int) {
	t.Helper()
	waitFor(t, "emails handed to the sender", func() bool { return len(h.sender.Sent()) >= n })
	if got := len(h.sender.Sent()); got != n {
		t.Fatalf("sent %d emails, want %d", got, n)
	}
}
