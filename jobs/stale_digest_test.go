package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/workflow"
)

// Once per UTC day the proposals pending longer than the configured age
// are posted to the escalation webhook as one signed digest, retried after
// a failed delivery and never posted twice: a second pass the same day, or
// a redelivered task, posts nothing. A day with nothing stale posts
// nothing and is not looked at again.
func TestStaleProposalDigestOncePerDay(t *testing.T) {
	t.Parallel()
	h := newHarness(t, feeQuote(9000))
	sink, srv := newWebhookSink[jobs.StaleDigest](t)
	hs := h.handlers("w")
	hs.StaleDigest = &jobs.StaleDigestHandler{Store: h.st, Webhook: jobs.Webhook{URL: srv.URL, Secret: sink.secret}}
	h.startWorker("w", hs)
	old, fresh := h.newCase("SUPERVISED", ""), h.newCase("SUPERVISED", "")
	for _, c := range []int64{old, fresh} {
		h.waitRun(h.deliver(c, "The fee is $90.00.", false).ID, workflow.RunParked)
	}
	h.db.Exec(t, `UPDATE proposals SET created_at = now() - interval '72 hours' WHERE case_id = $1`, old)
	oldProposal := h.db.Int(t, `SELECT id FROM proposals WHERE case_id = $1 AND status = 'PENDING_APPROVAL'`, old)

	ctx := context.Background()
	now := time.Now().UTC()
	day := now.Format(time.DateOnly)
	// The second pass, later the same UTC day (half way to midnight, so a
	// run just before midnight does not cross into the next day), finds
	// the day claimed.
	untilMidnight := now.Truncate(24 * time.Hour).Add(24 * time.Hour).Sub(now)
	for i, want := range []int{1, 0} {
		n, err := jobs.QueueStaleDigest(ctx, h.st, h.dispatch, h.queues, now.Add(time.Duration(i)*untilMidnight/2), 48*time.Hour)
		if err != nil || n != want {
			t.Fatalf("pass %d queued %d, want %d: %v", i, n, want, err)
		}
	}
	waitFor(t, "digest accepted after a retry", func() bool {
		got, _, _ := sink.snapshot()
		return len(got) == 1
	})
	waitFor(t, "digest marked delivered", func() bool {
		return h.db.Int(t, `SELECT count(*) FROM stale_digests WHERE day = $1::date AND delivered_at IS NOT NULL`, day) == 1
	})
	got, ids, bad := sink.snapshot()
	d := got[0]
	if bad != 0 || ids[0] != jobs.StaleDigestTaskID(day) {
		t.Fatalf("%d bad signatures, delivery ids %v", bad, ids)
	}
	if d.Type != "proposals.stale_digest" || d.Day != day || d.OlderThanHours != 48 || d.Truncated || len(d.Proposals) != 1 {
		t.Fatalf("digest %+v", d)
	}
	if p := d.Proposals[0]; p.ProposalID != oldProposal || p.CaseID != old || p.Action != string(workflow.ActionApproveFee) ||
		p.Version != 1 || p.Agency != "Springfield Police Department" || now.Sub(p.PendingSince) < 71*time.Hour {
		t.Fatalf("stale proposal %+v", p)
	}
	// The outbox relay or the reaper delivering the task again posts nothing.
	task, _ := jobs.NewStaleDigestTask(day)
	if err := hs.StaleDigest.ProcessTask(ctx, task); err != nil {
		t.Fatal(err)
	}
	// Tomorrow nothing is older than 30 days: the day is claimed, nothing posted.
	tomorrow := now.Add(24 * time.Hour)
	for i := 0; i < 2; i++ {
		if n, err := jobs.QueueStaleDigest(ctx, h.st, h.dispatch, h.queues, tomorrow, 30*24*time.Hour); err != nil || n != 0 {
			t.Fatalf("tomorrow pass %d queued %d: %v", i, n, err)
		}
	}
	if n := h.db.Int(t, `SELECT count(*) FROM stale_digests WHERE day = $1::date AND proposals = 0 AND delivered_at IS NOT NULL`,
		tomorrow.Format(time.DateOnly)); n != 1 {
		t.Fatalf("tomorrow's empty digest rows = %d", n)
	}
	if n := h.db.Int(t, `SELECT count(*) FROM outbox WHERE task_type = $1`, jobs.TypeStaleDigest); n != 1 {
		t.Fatalf("digest outbox rows = %d, want 1", n)
	}
	if again, _, _ := sink.snapshot(); len(again) != 1 {
		t.Fatalf("posted %d digests, want 1", len(again))
	}
}
