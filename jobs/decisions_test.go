package jobs_test

import (
	"context"
	"strings"
	"testing"

	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/store/storetest"
	"github.com/foiaflow/foiaflow/workflow"
)

func parkedFee(t *testing.T) (*harness, int64, int64, workflow.GatePayload) {
	h := newHarness(t, feeQuote(23750))
	h.startWorker("w", h.handlers("w"))
	caseID := h.newCase(workflow.AutopilotSupervised, "")
	run := h.deliver(caseID, "fee", false)
	return h, caseID, run.ID, gate(t, h.waitRun(run.ID, workflow.RunParked))
}

func TestEditSendsReviewerText(t *testing.T) {
	t.Parallel()
	h, caseID, runID, g := parkedFee(t)
	edited := "We accept the fee of $237.50. Please invoice the newsroom."
	h.decide(caseID, g.ProposalID, g.Version, workflow.DecisionEdit, "", edited)
	h.waitRun(runID, workflow.RunCompleted)
	storetestEventuallySent(t, h, 1)
	if got := h.sender.Sent()[0].Text; got != edited {
		t.Fatalf("sent %q, want the reviewer's exact text", got)
	}
	p, err := h.st.GetProposal(context.Background(), g.ProposalID)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Versions) != 2 || p.Versions[1].Source != workflow.SourceHumanEdited || p.Versions[1].Author != "reviewer@newsroom.test" {
		t.Fatalf("versions = %+v, want v2 human_edited by the reviewer", p.Versions)
	}
	if p.Versions[0].Source != workflow.SourceAIGenerated || p.CurrentVersion != 2 || p.Status != workflow.ProposalExecuted {
		t.Fatalf("proposal = %+v", p)
	}
	if k := h.db.String(t, `SELECT execution_key FROM email_sends WHERE case_id=$1`, caseID); k != workflow.ExecutionKey(g.ProposalKey, 2) {
		t.Fatalf("execution key %s, want one derived from version 2", k)
	}
}

// Issue 10 "Decisions that can't strand a case": an EDIT whose subject
// would inject a header (recorded before the API validated it) is rejected
// by the worker without touching the proposal, and its version stays
// decidable: a later APPROVE of the same version goes through.
func TestInvalidEditIsRejectedAndVersionStaysDecidable(t *testing.T) {
	t.Parallel()
	h, caseID, runID, g := parkedFee(t)
	ctx := context.Background()
	rows, err := h.st.InTx(ctx, func(tx *store.Tx) error {
		d, err := tx.InsertDecision(ctx, store.Decision{CaseID: caseID, ProposalID: g.ProposalID, Version: g.Version,
			Action: workflow.DecisionEdit, EditedSubject: "Fee acceptance\r\nBcc: victim@example.org", EditedText: "We accept.",
			Actor: "reviewer@newsroom.test", IdempotencyKey: storetest.Suffix(8)})
		if err != nil {
			return err
		}
		_, err = jobs.QueueResume(ctx, tx, h.queues, d.ID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.dispatch.Dispatch(ctx, rows); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "invalid edit rejected", func() bool {
		var s string
		_ = h.st.Pool().QueryRow(ctx, `SELECT status FROM decisions WHERE proposal_id = $1`, g.ProposalID).Scan(&s)
		return s == "rejected"
	})
	p, err := h.st.GetProposal(ctx, g.ProposalID)
	if err != nil {
		t.Fatal(err)
	}
	if p.Status != workflow.ProposalPending || p.CurrentVersion != g.Version || len(p.Versions) != 1 {
		t.Fatalf("a rejected decision changed the proposal: %s v%d (%d versions)", p.Status, p.CurrentVersion, len(p.Versions))
	}
	h.decide(caseID, g.ProposalID, g.Version, workflow.DecisionApprove, "", "")
	h.waitRun(runID, workflow.RunCompleted)
	storetestEventuallySent(t, h, 1)
	if subj := h.sender.Sent()[0].Subject; strings.ContainsAny(subj, "\r\n") {
		t.Fatalf("sent subject %q", subj)
	}
}

func TestAdjustRedraftsAndGatesAgainWithinBound(t *testing.T) {
	t.Parallel()
	h, caseID, runID, g := parkedFee(t) // MaxAdjustments = 2
	for round := 1; round <= 2; round++ {
		instr := "Ask them to waive the fee as a news media requester, round " + string(rune('0'+round))
		h.decide(caseID, g.ProposalID, g.Version, workflow.DecisionAdjust, instr, "")
		waitFor(t, "gate moves to the next version", func() bool {
			r, _ := h.st.GetRun(context.Background(), runID)
			return r.Status == workflow.RunParked && gate(t, r).Version == g.Version+1
		})
		r, _ := h.st.GetRun(context.Background(), runID)
		g = gate(t, r)
		p, _ := h.st.GetProposal(context.Background(), g.ProposalID)
		v := p.Versions[len(p.Versions)-1]
		if v.Source != workflow.SourceAIRegenerated || v.Feedback != instr || !strings.Contains(v.BodyText, instr) {
			t.Fatalf("round %d: version %+v", round, v)
		}
	}
	// A third ADJUST is over the bound: rejected, the run stays parked.
	d := h.decide(caseID, g.ProposalID, g.Version, workflow.DecisionAdjust, "once more", "")
	waitFor(t, "third adjust rejected", func() bool {
		got, _ := h.st.GetDecision(context.Background(), d.ID)
		return got.Status == "rejected"
	})
	r, _ := h.st.GetRun(context.Background(), runID)
	if r.Status != workflow.RunParked || gate(t, r).Version != 3 {
		t.Fatalf("after rejected adjust: %s v%d", r.Status, gate(t, r).Version)
	}
	if len(h.sender.Sent()) != 0 {
		t.Fatal("adjust sent an email")
	}
}

func TestDismissEndsRunSendsNothing(t *testing.T) {
	t.Parallel()
	h, caseID, runID, g := parkedFee(t)
	h.decide(caseID, g.ProposalID, g.Version, workflow.DecisionDismiss, "", "")
	h.waitRun(runID, workflow.RunCompleted)
	if s := h.db.String(t, `SELECT status FROM proposals WHERE id=$1`, g.ProposalID); s != workflow.ProposalDismissed {
		t.Fatalf("proposal %s", s)
	}
	if s := h.db.String(t, `SELECT status FROM cases WHERE id=$1`, caseID); s != workflow.CaseAwaitingResponse {
		t.Fatalf("case %s", s)
	}
	if n := h.db.Int(t, `SELECT count(*) FROM email_sends`); n != 0 || len(h.sender.Sent()) != 0 {
		t.Fatal("dismiss sent an email")
	}
}

func TestWithdrawClosesCase(t *testing.T) {
	t.Parallel()
	h, caseID, runID, g := parkedFee(t)
	h.decide(caseID, g.ProposalID, g.Version, workflow.DecisionWithdraw, "", "")
	h.waitRun(runID, workflow.RunCompleted)
	if s := h.db.String(t, `SELECT status FROM cases WHERE id=$1`, caseID); s != workflow.CaseWithdrawn {
		t.Fatalf("case %s", s)
	}
	if s := h.db.String(t, `SELECT status FROM proposals WHERE id=$1`, g.ProposalID); s != workflow.ProposalWithdrawn {
		t.Fatalf("proposal %s", s)
	}
	// A later reply to a withdrawn case starts a run that is cancelled.
	run := h.deliver(caseID, "fee again", false)
	h.waitRun(run.ID, workflow.RunCancelled)
	if len(h.sender.Sent()) != 0 {
		t.Fatal("withdrawn case emailed")
	}
}

func TestNewReplySupersedesPendingProposal(t *testing.T) {
	t.Parallel()
	h, caseID, runID, g := parkedFee(t)
	next := h.deliver(caseID, "a second fee letter", false)
	if s := h.db.String(t, `SELECT status FROM proposals WHERE id=$1`, g.ProposalID); s != workflow.ProposalSuperseded {
		t.Fatalf("old proposal %s, want SUPERSEDED", s)
	}
	if s := h.db.String(t, `SELECT status FROM runs WHERE id=$1`, runID); s != string(workflow.RunSuperseded) {
		t.Fatalf("old run %s", s)
	}
	// Approving the superseded proposal is rejected and sends nothing.
	d := h.decide(caseID, g.ProposalID, g.Version, workflow.DecisionApprove, "", "")
	waitFor(t, "stale approval rejected", func() bool {
		got, _ := h.st.GetDecision(context.Background(), d.ID)
		return got.Status == "rejected"
	})
	g2 := gate(t, h.waitRun(next.ID, workflow.RunParked))
	if g2.ProposalID == g.ProposalID {
		t.Fatal("new run reused the superseded proposal")
	}
	if len(h.sender.Sent()) != 0 {
		t.Fatal("superseded proposal was sent")
	}
}

// A reply that arrives while an older run of the case is mid-flight waits
// for it, then supersedes the gate that run left behind.
func TestReplyDuringRunSupersedesItsGate(t *testing.T) {
	t.Parallel()
	h := newHarness(t, feeQuote(23750))
	caseID := h.newCase(workflow.AutopilotSupervised, "")
	first := h.deliver(caseID, "fee 1", false)
	second := h.deliver(caseID, "fee 2", false) // both queued before any worker runs
	h.startWorker("w", h.handlers("w"))
	h.waitRun(second.ID, workflow.RunParked)
	if s := h.db.String(t, `SELECT status FROM runs WHERE id=$1`, first.ID); s != string(workflow.RunSuperseded) {
		t.Fatalf("first run %s, want superseded", s)
	}
	if n := h.db.Int(t, `SELECT count(*) FROM proposals WHERE case_id=$1 AND status='PENDING_APPROVAL'`, caseID); n != 1 {
		t.Fatalf("pending proposals = %d, want 1", n)
	}
}

func TestAutoExecutesSmallFeeWithoutGate(t *testing.T) {
	t.Parallel()
	h := newHarness(t, feeQuote(3000)) // $30 ≤ $50
	h.startWorker("w", h.handlers("w"))
	caseID := h.newCase(workflow.AutopilotAuto, "")
	run := h.deliver(caseID, "fee $30", false)
	h.waitRun(run.ID, workflow.RunCompleted)
	storetestEventuallySent(t, h, 1)
	if s := h.db.String(t, `SELECT approved_by FROM proposals WHERE case_id=$1`, caseID); s != "agent" {
		t.Fatalf("approved_by %q", s)
	}
}

func TestPortalCaseNeverEmailed(t *testing.T) {
	t.Parallel()
	h := newHarness(t, feeQuote(3000))
	h.startWorker("w", h.handlers("w"))
	caseID := h.newCase(workflow.AutopilotAuto, "https://springfield.govqa.us/WEBAPP/_rs/")
	run := h.deliver(caseID, "fee $30", false)
	g := gate(t, h.waitRun(run.ID, workflow.RunParked)) // safety check gates portal email
	h.decide(caseID, g.ProposalID, g.Version, workflow.DecisionApprove, "", "")
	h.waitRun(run.ID, workflow.RunCompleted)
	if n := h.db.Int(t, `SELECT count(*) FROM email_sends`); n != 0 {
		t.Fatalf("portal case has %d email sends", n)
	}
	if s := h.db.String(t, `SELECT status FROM cases WHERE id=$1`, caseID); s != workflow.CaseHumanTask {
		t.Fatalf("case %s, want human_task", s)
	}
	if n := h.db.Int(t, `SELECT count(*) FROM activity_log WHERE case_id=$1 AND kind='portal_human_task'`, caseID); n != 1 {
		t.Fatalf("portal human task not logged")
	}
}
