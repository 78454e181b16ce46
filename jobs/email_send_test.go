package jobs_test

import (
	"bytes"
	"context"
	netmail "net/mail"
	"strings"
	"testing"

	"github.com/foiaflow/foiaflow/mail"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// Issue 10 "Loop safety": an email that goes out without a human decision
// says so (RFC 3834 Auto-Submitted: auto-generated); one a reviewer
// approved does not; neither carries an internal key in its headers.
func TestAutomaticSendIsMarkedAutoSubmitted(t *testing.T) {
	t.Parallel()
	h := newHarness(t, feeQuote(3000)) // $30: AUTO accepts it without a human
	h.startWorker("w", h.handlers("w"))
	auto := h.newCase(workflow.AutopilotAuto, "")
	h.waitRun(h.deliver(auto, "fee $30", false).ID, workflow.RunCompleted)
	storetestEventuallySent(t, h, 1)
	supervised := h.newCase(workflow.AutopilotSupervised, "")
	run := h.deliver(supervised, "fee $30", false)
	g := gate(t, h.waitRun(run.ID, workflow.RunParked))
	h.decide(supervised, g.ProposalID, g.Version, workflow.DecisionApprove, "", "")
	h.waitRun(run.ID, workflow.RunCompleted)
	storetestEventuallySent(t, h, 2)

	for _, m := range h.sender.Sent() {
		raw, err := mail.BuildMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		key := h.db.String(t, `SELECT execution_key FROM email_sends WHERE message_id = $1`, m.MessageID)
		if bytes.Contains(raw, []byte(key)) || bytes.Contains(bytes.ToLower(raw), []byte("x-foiaflow")) {
			t.Fatalf("outbound mail carries an internal key:\n%s", raw)
		}
		isAuto := h.db.Int(t, `SELECT case_id FROM email_sends WHERE message_id = $1`, m.MessageID) == auto
		parsed, err := netmail.ReadMessage(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		hasHeader := parsed.Header.Get("Auto-Submitted") == "auto-generated"
		if isAuto != hasHeader {
			t.Errorf("automatic=%v but Auto-Submitted present=%v:\n%s", isAuto, hasHeader, raw)
		}
	}
	if n := h.db.Int(t, `SELECT count(*) FROM email_sends WHERE auto_submitted`); n != 1 {
		t.Fatalf("%d sends recorded as automatic, want 1", n)
	}
}

// Issue 10 "Loop safety": at AUTO_SENDS_PER_CASE_PER_DAY automatic emails a
// case's next automatic send waits for a human, with an escalation saying
// why, instead of going out.
func TestAutomaticSendCapGatesAndEscalates(t *testing.T) {
	t.Parallel()
	h := newHarness(t, feeQuote(3000))
	h.deps.AutoSendsPerDay = 1
	h.startWorker("w", h.handlers("w"))
	caseID := h.newCase(workflow.AutopilotAuto, "")
	h.waitRun(h.deliver(caseID, "fee $30", false).ID, workflow.RunCompleted)
	storetestEventuallySent(t, h, 1)

	second := h.deliver(caseID, "fee $30 again", false)
	g := gate(t, h.waitRun(second.ID, workflow.RunParked))
	if g.PauseReason != workflow.PauseAutoSendLimit {
		t.Fatalf("pause reason %q, want %s", g.PauseReason, workflow.PauseAutoSendLimit)
	}
	reason := h.db.String(t, `SELECT reason FROM escalations WHERE case_id = $1 AND status = 'open'`, caseID)
	if !strings.Contains(reason, "AUTO_SENDS_PER_CASE_PER_DAY=1") {
		t.Fatalf("escalation reason %q", reason)
	}
	if n := len(h.sender.Sent()); n != 1 {
		t.Fatalf("%d emails sent past the cap of 1", n)
	}
	// The reviewer may still send it: a human decision is not automatic.
	h.decide(caseID, g.ProposalID, g.Version, workflow.DecisionApprove, "", "")
	h.waitRun(second.ID, workflow.RunCompleted)
	storetestEventuallySent(t, h, 2)
}

// Issue 10 "Decisions that can't strand a case": a send that can never
// succeed (here the message cannot be rendered: the agency address, stored
// before addresses were validated, would inject a header) is given up at
// once and escalates the case with the reason, instead of leaving the
// proposal EXECUTED with an email that never leaves.
func TestPermanentSendFailureEscalatesCase(t *testing.T) {
	t.Parallel()
	h := newHarness(t, feeQuote(23750))
	hs := h.handlers("w")
	files, err := mail.NewFileSender(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	hs.Email.Sender = files
	h.startWorker("w", hs)
	caseID := h.newCase(workflow.AutopilotSupervised, "")
	h.db.Exec(t, `UPDATE agencies SET email = 'records@springfield.gov'||chr(13)||chr(10)||'Bcc: x@example.org'
		WHERE id = (SELECT agency_id FROM cases WHERE id = $1)`, caseID)
	run := h.deliver(caseID, "fee", false)
	g := gate(t, h.waitRun(run.ID, workflow.RunParked))
	h.decide(caseID, g.ProposalID, g.Version, workflow.DecisionApprove, "", "")
	h.waitRun(run.ID, workflow.RunCompleted)
	waitFor(t, "send given up", func() bool {
		var s string
		_ = h.st.Pool().QueryRow(context.Background(), `SELECT status FROM email_sends WHERE case_id = $1`, caseID).Scan(&s)
		return s == store.EmailFailed
	})
	if n := h.db.Int(t, `SELECT attempts FROM email_sends WHERE case_id = $1`, caseID); n != 1 {
		t.Fatalf("%d attempts: a permanent failure must not be retried", n)
	}
	reason := h.db.String(t, `SELECT reason FROM escalations WHERE case_id = $1 AND escalation_key LIKE 'send-failed:%'`, caseID)
	if !strings.Contains(reason, "CR or LF") {
		t.Fatalf("escalation reason %q does not say why", reason)
	}
	if s := h.db.String(t, `SELECT status FROM cases WHERE id = $1`, caseID); s != workflow.CaseEscalated {
		t.Fatalf("case %s, want escalated", s)
	}
	if n := h.db.Int(t, `SELECT count(*) FROM activity_log WHERE case_id = $1 AND kind = 'email_failed'`, caseID); n != 1 {
		t.Fatal("failure not in the activity log")
	}
	if sent, _ := files.Sent(); len(sent) != 0 {
		t.Fatalf("files written: %v", sent)
	}
}
