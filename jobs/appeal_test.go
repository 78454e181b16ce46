package jobs_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/analysis"
	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/workflow"
)

// denial answers every reply as a denial citing exemptions.
func denial(exemptions ...string) func(workflow.Reply) workflow.Analysis {
	return func(workflow.Reply) workflow.Analysis {
		return workflow.Analysis{Class: workflow.ClassDenial, Confidence: 0.9, Sentiment: workflow.SentimentNegative,
			Exemptions: exemptions, DenialWeak: true}
	}
}

// A federal denial ends in an appeal proposal that stays gated even in
// AUTO, citing each exemption and the appeal deadline (90 days from the
// denial). Approved, it is emailed once; the case then runs on the appeal's
// clock (decision due 20 days later here, follow-up count reset), an
// unanswered appeal gets an appeal follow-up, and a denial of the appeal
// escalates to a human.
func TestDenialEndsInGatedAppealWithItsOwnClock(t *testing.T) {
	t.Parallel()
	h := newHarness(t, denial("5 U.S.C. § 552(b)(7)(A)", "5 U.S.C. § 552(b)(6)"))
	h.deps.Drafter = analysis.Templates{}
	h.startWorker("w", h.handlers("w"))
	caseID := h.newCaseIn("US", workflow.AutopilotAuto, "")
	h.db.Exec(t, `UPDATE cases SET followup_count = 2 WHERE id = $1`, caseID)

	run := h.waitRun(h.deliver(caseID, "Your request is denied under exemptions 7(A) and 6.", false).ID, workflow.RunParked)
	g := gate(t, run)
	if g.Action != workflow.ActionSendAppeal || g.PauseReason != workflow.PauseAppeal {
		t.Fatalf("gate %+v, want a SEND_APPEAL gated for APPEAL", g)
	}
	c, err := h.st.LoadCase(context.Background(), caseID)
	if err != nil {
		t.Fatal(err)
	}
	if c.DeniedAt == nil || c.AppealDeadline == nil || !c.AppealDeadline.Equal(c.DeniedAt.AddDate(0, 0, 90)) {
		t.Fatalf("appeal window: denied %v deadline %v", c.DeniedAt, c.AppealDeadline)
	}
	p, err := h.st.LoadProposal(context.Background(), g.ProposalID)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"5 U.S.C. § 552(b)(7)(A): ", "5 U.S.C. § 552(b)(6): ", "5 U.S.C. § 552(a)(6)(A)",
		c.AppealDeadline.In(mustLoc(t, "America/New_York")).Format("January 2, 2006"), "segregable", "public interest"} {
		if !strings.Contains(p.BodyText, want) {
			t.Errorf("appeal lacks %q:\n%s", want, p.BodyText)
		}
	}
	if len(h.sender.Sent()) != 0 {
		t.Fatal("an appeal was sent before a human approved it")
	}

	h.decide(caseID, g.ProposalID, g.Version, workflow.DecisionApprove, "", "")
	waitFor(t, "appeal emailed", func() bool { return len(h.sender.Sent()) == 1 })
	if s := h.sender.Sent()[0]; !strings.Contains(s.Subject, "Freedom of Information Act Appeal") || s.To[0] != "records@springfield.gov" {
		t.Errorf("appeal email %q to %v", s.Subject, s.To)
	}
	waitFor(t, "appeal clock", func() bool {
		c, err = h.st.LoadCase(context.Background(), caseID)
		return err == nil && c.AppealedAt != nil && c.DueAt != nil
	})
	if c.FollowupCount != 0 || c.Status != workflow.CaseAwaitingResponse || !c.DueAt.Equal(c.AppealedAt.AddDate(0, 0, 20)) {
		t.Fatalf("after the appeal: status %s follow-ups %d due %v appealed %v", c.Status, c.FollowupCount, c.DueAt, c.AppealedAt)
	}

	// Silence past the appeal's decision date: an appeal follow-up (AUTO).
	h.db.Exec(t, `UPDATE cases SET next_followup_at = now() - interval '1 minute' WHERE id = $1`, caseID)
	if n, err := jobs.SweepFollowups(context.Background(), h.st, h.dispatch, h.queues, time.Now(), 100, 100); err != nil || n != 1 {
		t.Fatalf("sweep: %d %v", n, err)
	}
	waitFor(t, "appeal follow-up emailed", func() bool { return len(h.sender.Sent()) == 2 })
	if s := h.sender.Sent()[1]; !strings.Contains(s.Text, "following up on my appeal") {
		t.Errorf("follow-up is not about the appeal:\n%s", s.Text)
	}
	waitFor(t, "follow-up counted", func() bool {
		return h.db.Int(t, `SELECT followup_count FROM cases WHERE id = $1`, caseID) == 1
	})

	// The agency denies the appeal: a human decides what comes next.
	run = h.waitRun(h.deliver(caseID, "Your appeal is denied.", false).ID, workflow.RunParked)
	if g := gate(t, run); g.Action != workflow.ActionEscalate {
		t.Fatalf("denied appeal: %s, want ESCALATE", g.Action)
	}
	if len(h.sender.Sent()) != 2 {
		t.Fatal("something was sent after the appeal was denied")
	}
}

// An appeal to an outside body (Pennsylvania's Office of Open Records) is a
// human task: approving it records the filing and starts the appeal's clock
// but never emails the agency; the overdue appeal's follow-up is a human
// task too.
func TestExternalAppealIsAHumanTask(t *testing.T) {
	t.Parallel()
	h := newHarness(t, denial("65 P.S. § 67.708(b)(16)"))
	h.deps.Drafter = analysis.Templates{}
	h.startWorker("w", h.handlers("w"))
	caseID := h.newCaseIn("PA", workflow.AutopilotAuto, "")
	run := h.waitRun(h.deliver(caseID, "Denied.", false).ID, workflow.RunParked)
	g := gate(t, run)
	p, err := h.st.LoadProposal(context.Background(), g.ProposalID)
	if err != nil {
		t.Fatal(err)
	}
	if g.Action != workflow.ActionSendAppeal || !p.HumanTask || !strings.Contains(p.BodyText, "Office of Open Records") {
		t.Fatalf("gate %+v human task %v:\n%s", g, p.HumanTask, p.BodyText)
	}
	h.decide(caseID, g.ProposalID, g.Version, workflow.DecisionApprove, "", "")
	h.waitRun(run.ID, workflow.RunCompleted)
	c, err := h.st.LoadCase(context.Background(), caseID)
	if err != nil {
		t.Fatal(err)
	}
	if c.AppealedAt == nil || c.Status != workflow.CaseAwaitingResponse {
		t.Fatalf("appealed %v status %s", c.AppealedAt, c.Status)
	}
	if n := h.db.Int(t, `SELECT count(*) FROM activity_log WHERE case_id = $1 AND kind = 'human_task'`, caseID); n != 1 {
		t.Fatalf("human_task activity = %d", n)
	}
	h.db.Exec(t, `UPDATE cases SET next_followup_at = now() - interval '1 minute' WHERE id = $1`, caseID)
	if n, err := jobs.SweepFollowups(context.Background(), h.st, h.dispatch, h.queues, time.Now(), 100, 100); err != nil || n != 1 {
		t.Fatalf("sweep: %d %v", n, err)
	}
	waitFor(t, "follow-up gated as a human task", func() bool {
		return h.db.Int(t, `SELECT count(*) FROM proposals WHERE case_id = $1 AND action_type = 'SEND_FOLLOWUP'
			AND human_task AND status = 'PENDING_APPROVAL'`, caseID) == 1
	})
	if n := h.db.Int(t, `SELECT count(*) FROM email_sends WHERE case_id = $1`, caseID); n != 0 || len(h.sender.Sent()) != 0 {
		t.Fatalf("%d emails for an appeal to an outside body", n)
	}
}

// In a state without an administrative appeal a denial still ends in a
// rebuttal, and a weak one is sent on autopilot.
func TestDenialWithoutAppealIsARebuttal(t *testing.T) {
	t.Parallel()
	h := newHarness(t, denial())
	h.startWorker("w", h.handlers("w"))
	caseID := h.newCaseIn("CA", workflow.AutopilotAuto, "")
	h.waitRun(h.deliver(caseID, "Denied.", false).ID, workflow.RunCompleted)
	waitFor(t, "rebuttal emailed", func() bool { return len(h.sender.Sent()) == 1 })
	if n := h.db.Int(t, `SELECT count(*) FROM proposals WHERE case_id = $1 AND action_type = 'SEND_REBUTTAL'`, caseID); n != 1 {
		t.Fatalf("rebuttals = %d", n)
	}
	if n := h.db.Int(t, `SELECT count(*) FROM cases WHERE id = $1 AND denied_at IS NOT NULL AND appeal_deadline IS NULL`, caseID); n != 1 {
		t.Fatal("denial not recorded, or a deadline invented for a state without an appeal")
	}
}

// An appeal proposal still undecided when its window is about to close is
// escalated once, with the reason in the proposal's warnings; nothing
// happens before the warning period or once it was escalated.
func TestAppealWindowEscalatesOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t, denial("5 U.S.C. § 552(b)(5)"))
	h.deps.Drafter = analysis.Templates{}
	h.startWorker("w", h.handlers("w"))
	caseID := h.newCaseIn("US", workflow.AutopilotSupervised, "")
	g := gate(t, h.waitRun(h.deliver(caseID, "Denied.", false).ID, workflow.RunParked))
	c, err := h.st.LoadCase(context.Background(), caseID)
	if err != nil || c.AppealDeadline == nil {
		t.Fatalf("no deadline: %v", err)
	}
	warn := 5 * 24 * time.Hour
	ctx := context.Background()
	if n, err := jobs.SweepAppealWindows(ctx, h.st, c.AppealDeadline.Add(-warn-time.Hour), warn, 100); err != nil || n != 0 {
		t.Fatalf("early sweep escalated %d: %v", n, err)
	}
	now := c.AppealDeadline.Add(-3 * 24 * time.Hour)
	if n, err := jobs.SweepAppealWindows(ctx, h.st, now, warn, 100); err != nil || n != 1 {
		t.Fatalf("sweep escalated %d: %v", n, err)
	}
	if n, err := jobs.SweepAppealWindows(ctx, h.st, now.Add(time.Hour), warn, 100); err != nil || n != 0 {
		t.Fatalf("second sweep escalated %d: %v", n, err)
	}
	reason := h.db.String(t, `SELECT reason FROM escalations WHERE escalation_key = $1`, jobs.AppealWindowKey(g.ProposalID))
	if !strings.Contains(reason, "APPEAL WINDOW CLOSES on") || !strings.Contains(reason, "3 days left") {
		t.Errorf("reason %q", reason)
	}
	if n := h.db.Int(t, `SELECT count(*) FROM proposals WHERE id = $1 AND $2 = ANY(warnings)`, g.ProposalID, reason); n != 1 {
		t.Error("the reviewer queue does not show the closing window")
	}
	if n := h.db.Int(t, `SELECT count(*) FROM activity_log WHERE case_id = $1 AND kind = 'appeal_window_escalated'`, caseID); n != 1 {
		t.Errorf("activity rows = %d", n)
	}
	// A decided appeal is not escalated.
	h.decide(caseID, g.ProposalID, g.Version, workflow.DecisionDismiss, "", "")
	waitFor(t, "dismissed", func() bool {
		return h.db.Int(t, `SELECT count(*) FROM proposals WHERE id = $1 AND status = 'DISMISSED'`, g.ProposalID) == 1
	})
	h.db.Exec(t, `DELETE FROM escalations`)
	if n, err := jobs.SweepAppealWindows(ctx, h.st, c.AppealDeadline.Add(time.Hour), warn, 100); err != nil || n != 0 {
		t.Fatalf("dismissed appeal escalated %d: %v", n, err)
	}
}

func mustLoc(t *testing.T, name string) *time.Location {
	t.Helper()
	l, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Offline ADJUST through the real graph: a structured adjustment becomes a
// new ai_regenerated version, still gated; an instruction the grammar does
// not know never reaches the letter: the new version keeps the text, and
// the proposal stays gated with a NEEDS_HUMAN_EDIT flag and a message
// asking for an edited text.
func TestOfflineAdjustAppliesGrammarOrAsksForAnEdit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, denial("5 U.S.C. § 552(b)(7)(A)"))
	h.deps.Drafter = analysis.Templates{}
	h.startWorker("w", h.handlers("w"))
	caseID := h.newCaseIn("US", workflow.AutopilotSupervised, "")
	run := h.deliver(caseID, "Denied.", false)
	g := gate(t, h.waitRun(run.ID, workflow.RunParked))
	v1, err := h.st.LoadProposal(context.Background(), g.ProposalID)
	if err != nil {
		t.Fatal(err)
	}
	adjust := func(version int, instruction string) workflow.ProposalRecord {
		t.Helper()
		h.decide(caseID, g.ProposalID, version, workflow.DecisionAdjust, instruction, "")
		var p workflow.ProposalRecord
		waitFor(t, "new version", func() bool {
			p, err = h.st.LoadProposal(context.Background(), g.ProposalID)
			return err == nil && p.CurrentVersion == version+1 && p.Status == workflow.ProposalPending
		})
		return p
	}
	v2 := adjust(1, "add paragraph: I am a reporter and ask for expedited processing.")
	if !strings.Contains(v2.BodyText, "I am a reporter and ask for expedited processing.") || v2.BodyText == v1.BodyText {
		t.Fatalf("paragraph not added:\n%s", v2.BodyText)
	}
	v3 := adjust(2, "Tell them about our lawyer.")
	if v3.BodyText != v2.BodyText || strings.Contains(v3.BodyText, "lawyer") {
		t.Fatalf("unknown instruction changed the letter:\n%s", v3.BodyText)
	}
	flags := h.db.String(t, `SELECT array_to_string(risk_flags, ',') || ' | ' || array_to_string(warnings, ' ') FROM proposals WHERE id = $1`, g.ProposalID)
	if !strings.Contains(flags, workflow.RiskNeedsEdit) || !strings.Contains(flags, "Edit the text yourself (EDIT)") {
		t.Fatalf("flags and warnings: %s", flags)
	}
	if src := h.db.String(t, `SELECT source || ':' || feedback FROM proposal_versions WHERE proposal_id = $1 AND version = 3`, g.ProposalID); src != "ai_regenerated:Tell them about our lawyer." {
		t.Errorf("version 3: %s", src)
	}
	if len(h.sender.Sent()) != 0 {
		t.Fatal("an adjusted appeal was sent without approval")
	}
}
