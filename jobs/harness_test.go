package jobs_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/mail"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/store/storetest"
	"github.com/foiaflow/foiaflow/workflow"
)

// fakeAnalyzer answers with fn (hand-written fake with a function field).
type fakeAnalyzer struct {
	mu    sync.Mutex
	calls int
	fn    func(r workflow.Reply) workflow.Analysis
	err   error
}

func (f *fakeAnalyzer) Analyze(ctx context.Context, r workflow.Reply, c workflow.CaseContext) (workflow.Analysis, error) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	if f.err != nil {
		return workflow.Analysis{}, f.err
	}
	a := f.fn(r)
	a.Analyzer = "fake"
	return a, nil
}

func (f *fakeAnalyzer) Calls() int { f.mu.Lock(); defer f.mu.Unlock(); return f.calls }

// templateDrafter drafts "<action> v<n>" texts, honouring instructions.
type templateDrafter struct{}

func (templateDrafter) Draft(ctx context.Context, req workflow.DraftRequest) (workflow.Draft, error) {
	text := fmt.Sprintf("Dear records officer,\n\nRe %s: action %s.", req.Case.Subject, req.Action)
	if req.Analysis != nil && req.Analysis.FeeCents != nil {
		text += " We accept the fee of " + workflow.Cents(*req.Analysis.FeeCents) + "."
	}
	if req.Instruction != "" {
		text += "\n\n" + req.Instruction
	}
	return workflow.Draft{Subject: "RE: " + req.Case.Subject, Text: text, HTML: workflow.TextToHTML(text), Drafter: "test"}, nil
}

// recordingSender records every message handed to it.
type recordingSender struct {
	mu   sync.Mutex
	sent []mail.Outbound
	fail func(m mail.Outbound) error
}

func (s *recordingSender) Send(ctx context.Context, m mail.Outbound) error {
	if s.fail != nil {
		if err := s.fail(m); err != nil {
			return err
		}
	}
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

type fixedPlanner struct{}

func (fixedPlanner) Plan(in workflow.PlanInput) workflow.Plan {
	due := in.SentAt.AddDate(0, 0, 20)
	if in.AppealedAt != nil {
		due = in.AppealedAt.AddDate(0, 0, in.Appeal.DecideDays)
	}
	next := due
	if in.FollowupCount > 0 {
		next = in.Now.AddDate(0, 0, 15)
	}
	return workflow.Plan{DueAt: due, NextFollowupAt: next}
}

// AppealDeadline is terms.FileDays calendar days after the denial.
func (fixedPlanner) AppealDeadline(_ string, terms workflow.AppealTerms, denied time.Time, _ string) time.Time {
	if terms.FileDays == 0 {
		return time.Time{}
	}
	return denied.AddDate(0, 0, terms.FileDays)
}

type testMailer struct{}

func (testMailer) From() string                { return "foiaflow <requests@foia.test>" }
func (testMailer) ReplyTo(token string) string { return "requests+" + token + "@foia.test" }
func (testMailer) MessageID(key string) string {
	return "<" + strings.NewReplacer(":", ".").Replace(key) + "@foia.test>"
}
func (testMailer) SendAfter(now time.Time, key, tz string) time.Time { return now }

// harness is one isolated fleet: schema, queues, asynq client and servers.
type harness struct {
	t        *testing.T
	db       *storetest.DB
	st       *store.Store
	queues   jobs.Queues
	redis    asynq.RedisClientOpt
	client   *asynq.Client
	analyzer *fakeAnalyzer
	sender   *recordingSender
	deps     *workflow.Deps
	dispatch *jobs.Dispatcher
	log      *zap.Logger
}

func newHarness(t *testing.T, fn func(r workflow.Reply) workflow.Analysis) *harness {
	return newHarnessDB(t, fn, 0)
}

func newHarnessDB(t *testing.T, fn func(r workflow.Reply) workflow.Analysis, redisDB int) *harness {
	t.Helper()
	db := storetest.New(t)
	h := &harness{t: t, db: db, st: db.Store, queues: jobs.PrefixedQueues(storetest.QueuePrefix(t)),
		redis: asynq.RedisClientOpt{Addr: storetest.RedisAddr(), DB: redisDB}, analyzer: &fakeAnalyzer{fn: fn},
		sender: &recordingSender{}, log: zaptest.NewLogger(t, zaptest.Level(zap.InfoLevel))}
	h.client = asynq.NewClient(h.redis)
	t.Cleanup(func() { _ = h.client.Close() })
	h.deps = &workflow.Deps{Cases: h.st, Analyzer: h.analyzer, Drafter: templateDrafter{}, Planner: fixedPlanner{},
		Mailer: testMailer{}, Policy: workflow.RoutingPolicy{FeeAutoApproveMaxCents: 5000, MinConfidence: workflow.GateConfidence, MaxFollowups: 3}, MaxAdjustments: 2, MemoAnalysis: true, MemoDrafts: true}
	h.dispatch = &jobs.Dispatcher{Client: h.client, Store: h.st, Log: h.log}
	return h
}

// handlers returns the handlers of a worker named id, over h.deps as they
// are now.
func (h *harness) handlers(id string) *jobs.Worker {
	return jobs.NewWorker(jobs.WorkerDeps{Store: h.st, Deps: h.deps, Dispatch: h.dispatch, Queues: h.queues,
		WorkerID: id, Sender: h.sender, Log: h.log.Named(id)})
}

// startWorker runs an asynq server with the handlers until the test ends.
func (h *harness) startWorker(id string, hs *jobs.Worker) *asynq.Server {
	return h.serve(hs.Mux())
}

// serve runs an asynq server (jobs.NewServer, concurrency 4) with handler
// until the test ends.
func (h *harness) serve(handler asynq.Handler) *asynq.Server {
	h.t.Helper()
	srv := jobs.NewServer(h.redis, jobs.ServerOptions{Concurrency: 4, Queues: h.queues, ShutdownTimeout: 2 * time.Second,
		PollInterval: 2 * time.Millisecond, LogLevel: asynq.FatalLevel})
	if err := srv.Start(handler); err != nil {
		h.t.Fatalf("start worker: %v", err)
	}
	h.t.Cleanup(srv.Shutdown)
	return srv
}

// newCase creates a Texas case in mode with an agency address.
func (h *harness) newCase(mode workflow.AutopilotMode, portal string) int64 {
	h.t.Helper()
	return h.newCaseIn("TX", mode, portal)
}

// newCaseIn creates a case in jurisdiction jur, sent on 2026-10-01.
func (h *harness) newCaseIn(jur string, mode workflow.AutopilotMode, portal string) int64 {
	h.t.Helper()
	var id int64
	sent := time.Date(2026, 10, 1, 14, 0, 0, 0, time.UTC)
	_, err := h.st.InTx(context.Background(), func(tx *store.Tx) error {
		var err error
		id, err = tx.CreateCase(context.Background(), store.NewCase{AgencyName: "Springfield Police Department",
			AgencyEmail: "records@springfield.gov", Jurisdiction: jur, Subject: "Use of force reports 2025",
			RequestedRecords: []string{"use of force reports", "body camera footage"}, AutopilotMode: mode,
			ReplyToken: storetest.Suffix(8), SentAt: &sent, PortalURL: portal})
		return err
	})
	if err != nil {
		h.t.Fatalf("create case: %v", err)
	}
	return id
}

// deliver stores an inbound reply and starts its run (as the webhook does),
// dispatching the first step unless skip.
func (h *harness) deliver(caseID int64, text string, skip bool) store.Run {
	h.t.Helper()
	ctx := context.Background()
	var run store.Run
	rows, err := h.st.InTx(ctx, func(tx *store.Tx) error {
		cid := caseID
		mid, _, err := tx.InsertMessage(ctx, store.Message{CaseID: &cid, Direction: "inbound",
			MessageID: "<" + storetest.Suffix(8) + "@springfield.gov>", From: "records@springfield.gov",
			Subject: "RE: records request", Text: text, SenderAllowed: true})
		if err != nil {
			return err
		}
		if err := tx.SupersedePending(ctx, caseID, 0); err != nil {
			return err
		}
		run, _, err = jobs.StartRun(ctx, tx, h.queues, store.NewRun{CaseID: caseID, Trigger: workflow.TriggerAgencyReply,
			TriggerKey: fmt.Sprintf("reply:%d", mid), TriggerMessageID: &mid})
		return err
	})
	if err != nil {
		h.t.Fatalf("deliver: %v", err)
	}
	if !skip {
		if err := h.dispatch.Dispatch(ctx, rows); err != nil {
			h.t.Fatalf("dispatch: %v", err)
		}
	}
	return run
}

// waitRun waits until the run reaches one of statuses.
func (h *harness) waitRun(id int64, statuses ...workflow.RunStatus) store.Run {
	h.t.Helper()
	var run store.Run
	storetest.Eventually(h.t, 15*time.Second, fmt.Sprintf("run %d in %v", id, statuses), func() bool {
		r, err := h.st.GetRun(context.Background(), id)
		if err != nil {
			return false
		}
		run = r
		for _, s := range statuses {
			if r.Status == s {
				return true
			}
		}
		return false
	})
	return run
}

// decide records a decision and dispatches its resume, like the API does.
func (h *harness) decide(caseID, proposalID int64, version int, action, instruction, text string) store.Decision {
	h.t.Helper()
	return h.record(store.Decision{CaseID: caseID, ProposalID: proposalID, Version: version,
		Action: action, Instruction: instruction, EditedText: text})
}

// record records d by reviewer@newsroom.test under a fresh idempotency key
// and dispatches its resume, like the API does.
func (h *harness) record(d store.Decision) store.Decision {
	h.t.Helper()
	ctx := context.Background()
	d.Actor, d.IdempotencyKey = "reviewer@newsroom.test", storetest.Suffix(8)
	d, err := h.useCases().RecordDecision(ctx, d)
	if err != nil {
		h.t.Fatalf("decide: %v", err)
	}
	return d
}

// gate returns the parked run's gate payload.
func gate(t *testing.T, run store.Run) workflow.GatePayload {
	t.Helper()
	var g workflow.GatePayload
	if err := jsonUnmarshal(run.Interrupt, &g); err != nil || g.ProposalID == 0 {
		t.Fatalf("run %d has no gate payload (%s): %v", run.ID, run.Interrupt, err)
	}
	return g
}

func feeQuote(cents int64) func(workflow.Reply) workflow.Analysis {
	return func(workflow.Reply) workflow.Analysis {
		return workflow.Analysis{Class: workflow.ClassFeeQuote, Confidence: 0.95, Sentiment: workflow.SentimentNeutral,
			FeeCents: &cents, ConstraintsToAdd: []workflow.Constraint{workflow.ConstraintFeeRequired}}
	}
}

func waitFor(t *testing.T, msg string, cond func() bool) {
	t.Helper()
	storetest.Eventually(t, 15*time.Second, msg, cond)
}

// decideNoDispatch records an APPROVE and its resume outbox row without
// dispatching it (the relay or reaper must).
func (h *harness) decideNoDispatch(caseID, proposalID int64, version int) store.Decision {
	h.t.Helper()
	ctx := context.Background()
	var d store.Decision
	rows, err := h.st.InTx(ctx, func(tx *store.Tx) error {
		var err error
		d, err = tx.InsertDecision(ctx, store.Decision{CaseID: caseID, ProposalID: proposalID, Version: version,
			Action: workflow.DecisionApprove, Actor: "reviewer@newsroom.test", IdempotencyKey: storetest.Suffix(8)})
		if err != nil {
			return err
		}
		_, err = jobs.QueueResume(ctx, tx, h.queues, d.ID)
		return err
	})
	if err != nil {
		h.t.Fatalf("decide: %v", err)
	}
	if err := h.st.MarkDispatched(ctx, []int64{rows[0].ID}); err != nil {
		h.t.Fatal(err)
	}
	return d
}
