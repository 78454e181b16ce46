package jobs_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/workflow"
)

// Two sweeps racing over the same due cases start exactly one run per case
// and due date.
func TestSweepStartsOneRunPerDueDate(t *testing.T) {
	t.Parallel()
	h := newHarness(t, feeQuote(0))
	var ids []int64
	for i := 0; i < 25; i++ {
		ids = append(ids, h.newCase(workflow.AutopilotAuto, ""))
	}
	h.db.Exec(t, `UPDATE cases SET next_followup_at = now() - interval '1 hour'`)
	now := time.Now()
	var wg sync.WaitGroup
	counts := make([]int, 3)
	for i := range counts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := jobs.SweepFollowups(context.Background(), h.st, h.dispatch, h.queues, now, 1000, 7)
			if err != nil {
				t.Error(err)
			}
			counts[i] = n
		}()
	}
	wg.Wait()
	if total := counts[0] + counts[1] + counts[2]; total != len(ids) {
		t.Fatalf("sweeps created %v runs, want %d in total", counts, len(ids))
	}
	if n := h.db.Int(t, `SELECT count(*) FROM runs WHERE trigger='time_based_followup'`); n != int64(len(ids)) {
		t.Fatalf("runs = %d, want %d", n, len(ids))
	}
	// A later sweep while runs are active starts nothing new.
	if n, err := jobs.SweepFollowups(context.Background(), h.st, h.dispatch, h.queues, now, 1000, 7); err != nil || n != 0 {
		t.Fatalf("repeat sweep created %d: %v", n, err)
	}
}

// A silent agency gets an automatic follow-up in AUTO: one email, the counter
// written once, the next follow-up moved forward.
func TestFollowupRunSendsAndReschedules(t *testing.T) {
	t.Parallel()
	h := newHarness(t, feeQuote(0))
	h.startWorker("w", h.handlers("w"))
	caseID := h.newCase(workflow.AutopilotAuto, "")
	h.db.Exec(t, `UPDATE cases SET next_followup_at = now() - interval '1 minute', tracking_number='R-77' WHERE id=$1`, caseID)
	n, err := jobs.SweepFollowups(context.Background(), h.st, h.dispatch, h.queues, time.Now(), 100, 100)
	if err != nil || n != 1 {
		t.Fatalf("sweep: %d %v", n, err)
	}
	runID := h.db.Int(t, `SELECT id FROM runs WHERE case_id=$1`, caseID)
	h.waitRun(runID, workflow.RunCompleted)
	storetestEventuallySent(t, h, 1)
	if c := h.db.Int(t, `SELECT followup_count FROM cases WHERE id=$1`, caseID); c != 1 {
		t.Fatalf("followup_count = %d, want 1", c)
	}
	if h.db.Int(t, `SELECT count(*) FROM cases WHERE id=$1 AND next_followup_at > now()`, caseID) != 1 {
		t.Fatal("next follow-up not moved into the future")
	}
	if a := h.db.String(t, `SELECT action_type FROM proposals WHERE case_id=$1`, caseID); a != string(workflow.ActionSendFollowup) {
		t.Fatalf("action %s", a)
	}
}

// A dismissed follow-up sends nothing, leaves the counter alone and moves the
// next follow-up a cadence ahead, so the case is not stuck on a past date.
func TestDismissedFollowupReschedules(t *testing.T) {
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
	h.decide(caseID, g.ProposalID, g.Version, workflow.DecisionDismiss, "", "")
	h.waitRun(runID, workflow.RunCompleted)
	if h.db.Int(t, `SELECT count(*) FROM cases WHERE id=$1 AND status='awaiting_response' AND next_followup_at > now() AND followup_count = 0`, caseID) != 1 {
		t.Fatalf("case after dismissed follow-up: %s", h.db.String(t, `SELECT row_to_json(c)::text FROM cases c WHERE id=$1`, caseID))
	}
	if n, err := jobs.SweepFollowups(context.Background(), h.st, h.dispatch, h.queues, time.Now(), 100, 100); err != nil || n != 0 {
		t.Fatalf("sweep after dismissal started %d runs: %v", n, err)
	}
	if len(h.sender.Sent()) != 0 {
		t.Fatal("dismissed follow-up was sent")
	}
}
