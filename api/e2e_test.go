package api

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/mail"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/store/storetest"
	"github.com/foiaflow/foiaflow/workflow"
)

// Hand-written fakes for the worker of the end-to-end test.
type ackAnalyzer struct{}

func (ackAnalyzer) Analyze(ctx context.Context, r workflow.Reply, c workflow.CaseContext) (workflow.Analysis, error) {
	return workflow.Analysis{Class: workflow.ClassAcknowledgment, Confidence: 0.95, Sentiment: workflow.SentimentNeutral,
		TrackingNumber: "2026-0042", Analyzer: "fake"}, nil
}

type plainDrafter struct{}

func (plainDrafter) Draft(ctx context.Context, req workflow.DraftRequest) (workflow.Draft, error) {
	text := "Dear records officer,\n\nUnder the Public Information Act I request: " +
		strings.Join(req.Case.RequestedRecords, "; ") + "."
	return workflow.Draft{Subject: "Public records request: " + req.Case.Subject, Text: text,
		HTML: workflow.TextToHTML(text), Drafter: "test"}, nil
}

type fixedPlanner struct{}

func (fixedPlanner) Plan(in workflow.PlanInput) workflow.Plan {
	due := in.SentAt.AddDate(0, 0, 10)
	return workflow.Plan{DueAt: due, NextFollowupAt: due}
}

func (fixedPlanner) AppealDeadline(string, workflow.AppealTerms, time.Time, string) time.Time {
	return time.Time{}
}

type testMailer struct{}

func (testMailer) From() string                { return "foiaflow <requests@" + testDomain + ">" }
func (testMailer) ReplyTo(token string) string { return mail.ReplyAddress(token, testDomain) }
func (testMailer) MessageID(key string) string { return testIDs.MessageID(key) }
func (testMailer) SendAfter(now time.Time, key, tz string) time.Time {
	return now
}

type recordingSender struct {
	mu   sync.Mutex
	sent []mail.Outbound
}

func (s *recordingSender) Send(ctx context.Context, m mail.Outbound) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, m)
	return nil
}

func (s *recordingSender) Sent() []mail.Outbound {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]mail.Outbound(nil), s.sent...)
}

// startWorker runs the real job handlers over e's queues until the test
// ends.
func (e *env) startWorker() *recordingSender {
	return e.startWorkerWith(func(*workflow.Deps) {})
}

// startWorkerWith is startWorker with the graph's Deps adjusted by mod
// (another analyzer or drafter, memoized LLM calls).
func (e *env) startWorkerWith(mod func(*workflow.Deps)) *recordingSender {
	sender := &recordingSender{}
	deps := &workflow.Deps{Cases: e.st, Analyzer: ackAnalyzer{}, Drafter: plainDrafter{}, Planner: fixedPlanner{},
		Mailer: testMailer{}, Policy: workflow.RoutingPolicy{FeeAutoApproveMaxCents: 5000, MinConfidence: workflow.GateConfidence, MaxFollowups: 3}, MaxAdjustments: 2}
	mod(deps)
	hs := jobs.NewWorker(jobs.WorkerDeps{Store: e.st, Deps: deps, Dispatch: e.dispatch, Queues: e.queues,
		WorkerID: "w1", Sender: sender, Log: e.log, Inbound: e.proc})
	srv := jobs.NewServer(e.redis, jobs.ServerOptions{Concurrency: 4, Queues: e.queues, ShutdownTimeout: 2 * time.Second,
		PollInterval: 2 * time.Millisecond, LogLevel: asynq.FatalLevel})
	if err := srv.Start(hs.Mux()); err != nil {
		e.t.Fatalf("start worker: %v", err)
	}
	e.t.Cleanup(srv.Shutdown)
	return sender
}

// TestEndToEndApproveSendsTheInitialRequest drives the real worker through
// the API: create a case with send_initial_request → the run parks at the
// gate → approve → the request is emailed once; the agency's threaded reply
// is matched by In-Reply-To and worked.
func TestEndToEndApproveSendsTheInitialRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	sender := e.startWorker()
	body := validCase()
	body["send_initial_request"] = true
	var created createdCase
	e.req("POST", "/v1/cases", e.reviewerKey, body).expect(http.StatusCreated, "").decode(&created)
	caseID := created.Case.CaseID
	statePath := "/v1/cases/" + itoa(caseID) + "/agent-state"

	var gate workflow.GatePayload
	storetest.Eventually(t, 15*time.Second, "initial request parked at the gate", func() bool {
		var st AgentState
		e.req("GET", statePath, e.reviewerKey, nil).expect(200, "").decode(&st)
		return st.IsInterrupted && jsonUnmarshal(st.Interrupt, &gate) == nil && gate.ProposalID != 0
	})
	var queue struct {
		Proposals []struct {
			ID     int64  `json:"id"`
			Action string `json:"action_type"`
		} `json:"proposals"`
	}
	e.req("GET", "/v1/proposals?status=PENDING_APPROVAL", e.reviewerKey, nil).expect(200, "").decode(&queue)
	if len(queue.Proposals) != 1 || queue.Proposals[0].ID != gate.ProposalID || queue.Proposals[0].Action != string(workflow.ActionSendInitial) {
		t.Fatalf("review queue %+v, gate %+v", queue, gate)
	}
	if len(sender.Sent()) != 0 {
		t.Fatal("sent before approval")
	}

	e.decide(caseID, gate.ProposalID, "approve", map[string]any{"version": gate.Version}, "approve-1").expect(202, "")
	storetest.Eventually(t, 15*time.Second, "initial request emailed", func() bool { return len(sender.Sent()) == 1 })
	out := sender.Sent()[0]
	if out.To[0] != "records@springfield.gov" || out.ReplyTo != created.Case.ReplyAddress || !strings.Contains(out.Text, "use of force reports") {
		t.Fatalf("sent %+v", out)
	}
	storetest.Eventually(t, 15*time.Second, "decision applied", func() bool {
		return e.db.String(t, `SELECT status FROM decisions WHERE idempotency_key = 'approve-1'`) == "applied"
	})

	// Someone answers in the thread from an address that is not the
	// agency's: the worker parses it (stored first, parsed by the job),
	// attaches it by In-Reply-To, and parks it for a human without applying
	// anything (issue 10).
	stranger := rawEmail("Intake <intake@records-vendor.example>", "requests@"+testDomain, msgID(), out.MessageID, "We received your request; reference 2026-0099.")
	var rc inboundReceipt
	e.postRaw(stranger, testRawSecret, time.Now()).expect(202, "").decode(&rc)
	var st store.InboundStatus
	storetest.Eventually(t, 15*time.Second, "stranger's reply parsed", func() bool {
		e.req("GET", "/v1/inbound/"+itoa(rc.RawMessageID), e.reviewerKey, nil).expect(200, "").decode(&st)
		return st.Status != "received"
	})
	if st.Match != "in_reply_to" || st.CaseID == nil || *st.CaseID != caseID || st.SenderAllowed == nil || *st.SenderAllowed || st.RunID == nil {
		t.Fatalf("stranger's reply %+v", st)
	}
	storetest.Eventually(t, 15*time.Second, "stranger's reply parked for a human", func() bool {
		var as AgentState
		e.req("GET", statePath, e.reviewerKey, nil).expect(200, "").decode(&as)
		return as.IsInterrupted && jsonUnmarshal(as.Interrupt, &gate) == nil && gate.PauseReason == workflow.PauseUnverifiedSender
	})
	if tn := e.db.String(t, `SELECT tracking_number FROM cases WHERE id = $1`, caseID); tn != "" {
		t.Fatalf("an unverified sender set the tracking number %q", tn)
	}

	// The agency itself answers in the thread: worked without a human.
	reply := rawEmail("Records <records@springfield.gov>", "requests@"+testDomain, msgID(), out.MessageID, "We received your request; reference 2026-0042.")
	e.postRaw(reply, testRawSecret, time.Now()).expect(202, "")
	storetest.Eventually(t, 15*time.Second, "reply worked", func() bool {
		return e.db.String(t, `SELECT tracking_number FROM cases WHERE id = $1`, caseID) == "2026-0042"
	})
	if len(sender.Sent()) != 1 {
		t.Fatalf("%d emails, want 1", len(sender.Sent()))
	}
}
