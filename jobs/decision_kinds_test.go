package jobs_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// REJECT (issue 12): nothing is sent, the proposal is REJECTED and the case
// escalates to a person with the reviewer's name and reason.
func TestRejectEscalatesWithReason(t *testing.T) {
	t.Parallel()
	h, caseID, runID, g := parkedFee(t)
	h.record(store.Decision{CaseID: caseID, ProposalID: g.ProposalID, Version: g.Version,
		Action: workflow.DecisionReject, Reason: "the fee letter is for another request"})
	h.waitRun(runID, workflow.RunCompleted)
	if s := h.db.String(t, `SELECT status FROM proposals WHERE id=$1`, g.ProposalID); s != workflow.ProposalRejected {
		t.Fatalf("proposal %s, want REJECTED", s)
	}
	if s := h.db.String(t, `SELECT status FROM cases WHERE id=$1`, caseID); s != workflow.CaseEscalated {
		t.Fatalf("case %s, want escalated", s)
	}
	reason := h.db.String(t, `SELECT reason FROM escalations WHERE case_id=$1 AND status='open'`, caseID)
	if !strings.Contains(reason, "reviewer@newsroom.test") || !strings.Contains(reason, "another request") {
		t.Fatalf("escalation reason %q", reason)
	}
	if n := h.db.Int(t, `SELECT count(*) FROM email_sends`); n != 0 || len(h.sender.Sent()) != 0 {
		t.Fatal("reject sent an email")
	}
}

// SKIP of a reply's proposal: nothing is sent, the case waits for the
// agency again.
func TestSkipSendsNothingAndCaseWaits(t *testing.T) {
	t.Parallel()
	h, caseID, runID, g := parkedFee(t)
	h.decide(caseID, g.ProposalID, g.Version, workflow.DecisionSkip, "", "")
	h.waitRun(runID, workflow.RunCompleted)
	if s := h.db.String(t, `SELECT status FROM proposals WHERE id=$1`, g.ProposalID); s != workflow.ProposalSkipped {
		t.Fatalf("proposal %s, want SKIPPED", s)
	}
	if s := h.db.String(t, `SELECT status FROM cases WHERE id=$1`, caseID); s != workflow.CaseAwaitingResponse {
		t.Fatalf("case %s", s)
	}
	if n := h.db.Int(t, `SELECT count(*) FROM email_sends`); n != 0 || len(h.sender.Sent()) != 0 {
		t.Fatal("skip sent an email")
	}
}

// A skipped follow-up takes its place in the schedule: the counter moves
// on (unlike DISMISS, which proposes the same follow-up again) and the next
// follow-up is in the future.
func TestSkippedFollowupCountsInSchedule(t *testing.T) {
	t.Parallel()
	h := newHarness(t, feeQuote(0))
	h.startWorker("w", h.handlers("w"))
	caseID := h.newCase(workflow.AutopilotSupervised, "")
	h.db.Exec(t, `UPDATE cases SET next_followup_at = now() - interval '1 minute' WHERE id=$1`, caseID)
	if n, err := jobs.SweepFollowups(context.Background(), h.st, h.dispatch, h.queues, time.Now(), 100, 100); err != nil || n != 1 {
		t.Fatalf("sweep: %d %v", n, err)
	}
	runID := h.db.Int(t, `SELECT id FROM runs WHERE case_id=$1`, caseID)
	g := gate(t, h.waitRun(runID, workflow.RunParked))
	h.decide(caseID, g.ProposalID, g.Version, workflow.DecisionSkip, "", "")
	h.waitRun(runID, workflow.RunCompleted)
	if h.db.Int(t, `SELECT count(*) FROM cases WHERE id=$1 AND status='awaiting_response' AND next_followup_at > now() AND followup_count = 1`, caseID) != 1 {
		t.Fatalf("case after skipped follow-up: %s", h.db.String(t, `SELECT row_to_json(c)::text FROM cases c WHERE id=$1`, caseID))
	}
	if len(h.sender.Sent()) != 0 {
		t.Fatal("skipped follow-up was sent")
	}
}

// PROMOTE (seed 004 "select an older version"): after an ADJUST, version 1
// is promoted: it becomes version 3 (source promoted, same text), the run
// parks again on it, and an APPROVE of version 3 sends version 1's text.
func TestPromoteOlderVersionThenApprove(t *testing.T) {
	t.Parallel()
	h, caseID, runID, g := parkedFee(t)
	ctx := context.Background()
	h.decide(caseID, g.ProposalID, g.Version, workflow.DecisionAdjust, "Ask for a fee waiver instead", "")
	waitFor(t, "gate at version 2", func() bool {
		r, _ := h.st.GetRun(ctx, runID)
		return r.Status == workflow.RunParked && gate(t, r).Version == 2
	})
	v1 := 1
	h.record(store.Decision{CaseID: caseID, ProposalID: g.ProposalID, Version: 2,
		Action: workflow.DecisionPromote, PromoteVersion: &v1})
	waitFor(t, "gate at version 3", func() bool {
		r, _ := h.st.GetRun(ctx, runID)
		return r.Status == workflow.RunParked && gate(t, r).Version == 3
	})
	p, err := h.st.GetProposal(ctx, g.ProposalID)
	if err != nil {
		t.Fatal(err)
	}
	v3 := p.Versions[2]
	if p.Status != workflow.ProposalPending || p.CurrentVersion != 3 || v3.Source != workflow.SourcePromoted ||
		v3.PromotedFrom == nil || *v3.PromotedFrom != 1 || v3.BodyText != p.Versions[0].BodyText || v3.Author != "reviewer@newsroom.test" {
		t.Fatalf("after promote: %s v%d, version 3 = %+v", p.Status, p.CurrentVersion, v3)
	}
	if len(h.sender.Sent()) != 0 {
		t.Fatal("promote sent an email before approval")
	}
	h.decide(caseID, g.ProposalID, 3, workflow.DecisionApprove, "", "")
	h.waitRun(runID, workflow.RunCompleted)
	storetestEventuallySent(t, h, 1)
	if got := h.sender.Sent()[0].Text; got != p.Versions[0].BodyText {
		t.Fatalf("sent %q, want version 1's text %q", got, p.Versions[0].BodyText)
	}
}

// A PROMOTE naming a version that is not earlier is rejected by the worker
// and leaves the gate where it was.
func TestPromoteOfCurrentVersionIsRejected(t *testing.T) {
	t.Parallel()
	h, caseID, runID, g := parkedFee(t)
	cur := g.Version
	d := h.record(store.Decision{CaseID: caseID, ProposalID: g.ProposalID, Version: g.Version,
		Action: workflow.DecisionPromote, PromoteVersion: &cur})
	waitFor(t, "promote rejected", func() bool {
		got, _ := h.st.GetDecision(context.Background(), d.ID)
		return got.Status == "rejected"
	})
	r, _ := h.st.GetRun(context.Background(), runID)
	if r.Status != workflow.RunParked || gate(t, r).Version != g.Version {
		t.Fatalf("after rejected promote: %s v%d", r.Status, gate(t, r).Version)
	}
}

// Every step a worker commits leaves one status event in its transaction
// (issue 12 live events), the park a parked event, and the email accepted
// by the transport a sent event.
func TestWorkerStepsLeaveCaseEvents(t *testing.T) {
	t.Parallel()
	h, caseID, runID, g := parkedFee(t)
	if s, e := h.db.Int(t, `SELECT count(*) FROM run_steps WHERE run_id=$1`, runID),
		h.db.Int(t, `SELECT count(*) FROM case_events WHERE run_id=$1 AND type='status'`, runID); s == 0 || s != e {
		t.Fatalf("%d steps, %d status events", s, e)
	}
	if n := h.db.Int(t, `SELECT count(*) FROM case_events WHERE run_id=$1 AND type='parked'`, runID); n != 1 {
		t.Fatalf("parked events = %d", n)
	}
	h.decide(caseID, g.ProposalID, g.Version, workflow.DecisionApprove, "", "")
	h.waitRun(runID, workflow.RunCompleted)
	storetestEventuallySent(t, h, 1)
	waitFor(t, "sent event", func() bool {
		return h.db.Int(t, `SELECT count(*) FROM case_events WHERE case_id=$1 AND type='sent'`, caseID) == 1
	})
}
