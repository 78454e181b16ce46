package jobs_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/workflow"
)

// hangFirst makes the first task it gets behave like one held by a worker
// that was SIGKILLed: asynq keeps it "active" (its lease is extended while
// the server lives), nobody works on it, no lock is held. Later tasks pass
// through to next.
type hangFirst struct {
	next    asynq.Handler
	once    sync.Once
	hung    chan struct{}
	release chan struct{}
}

func newHangFirst(next asynq.Handler) *hangFirst {
	return &hangFirst{next: next, hung: make(chan struct{}), release: make(chan struct{})}
}

func (h *hangFirst) ProcessTask(ctx context.Context, t *asynq.Task) error {
	first := false
	h.once.Do(func() { first = true })
	if first {
		close(h.hung)
		<-h.release
		return nil
	}
	return h.next.ProcessTask(ctx, t)
}

func waitClosed(t *testing.T, what string, c chan struct{}) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(15 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// Regression (found by make chaos): a resume or email task held "active" by
// a dead worker waited for asynq's lease recovery (30–90 s; 81 s measured).
// The reaper must re-dispatch both within a pass once no live worker holds
// the lock guarding the work, and the email must still go out exactly once.
func TestReaperRecoversResumeAndSendHeldByDeadWorker(t *testing.T) {
	h := newHarness(t, feeQuote(23750))
	caseID := h.newCase(workflow.AutopilotSupervised, "")
	hs := h.handlers("w")
	resume, send := newHangFirst(hs.Resume), newHangFirst(hs.Email)
	mux := asynq.NewServeMux()
	mux.Handle(jobs.TypeAgentStep, hs.Step)
	mux.Handle(jobs.TypeAgentResume, resume)
	mux.Handle(jobs.TypeEmailSend, send)
	h.serve(mux)
	t.Cleanup(func() { close(resume.release); close(send.release) }) // runs before Shutdown

	run := h.deliver(caseID, "fee", false)
	g := gate(t, h.waitRun(run.ID, workflow.RunParked))
	h.decide(caseID, g.ProposalID, g.Version, workflow.DecisionApprove, "", "")
	waitClosed(t, "the resume task to be held", resume.hung)

	insp := asynq.NewInspector(h.redis)
	defer insp.Close()
	reaper := &jobs.Reaper{Store: h.st, Inspector: insp, Dispatch: h.dispatch, Queues: h.queues, Log: h.log}
	ctx := context.Background()
	res, err := reaper.Reap(ctx)
	if err != nil || res.Decisions != 1 {
		t.Fatalf("reap with the resume held by a dead worker: %+v, %v; want 1 decision re-dispatched", res, err)
	}
	h.waitRun(run.ID, workflow.RunCompleted)
	waitClosed(t, "the send task to be held", send.hung)
	res, err = reaper.Reap(ctx)
	if err != nil || res.Emails != 1 {
		t.Fatalf("reap with the send held by a dead worker: %+v, %v; want 1 email re-dispatched", res, err)
	}
	storetestEventuallySent(t, h, 1)
	// Further passes find nothing: the send is SENT, the decision applied.
	if res, err := reaper.Reap(ctx); err != nil || res != (jobs.ReapResult{}) {
		t.Fatalf("reap after recovery: %+v, %v", res, err)
	}
	if len(h.sender.Sent()) != 1 {
		t.Fatalf("sent %d emails, want exactly 1", len(h.sender.Sent()))
	}
}

// A send in progress (its lock held by a live worker) is left alone even
// though its task is active: re-dispatching it would race the sender.
func TestReaperLeavesSendInProgress(t *testing.T) {
	h := newHarness(t, feeQuote(23750))
	ctx := context.Background()
	lock, err := h.st.TryLockSend(ctx, "exec:live")
	if err != nil {
		t.Fatal(err)
	}
	free, err := h.st.SendLockFree(ctx, "exec:live")
	lock.Unlock(ctx)
	if err != nil || free {
		t.Fatalf("SendLockFree while held = %v, %v; want false", free, err)
	}
	if free, err := h.st.SendLockFree(ctx, "exec:live"); err != nil || !free {
		t.Fatalf("SendLockFree after unlock = %v, %v; want true", free, err)
	}
}

// Regression (found by make chaos, recovery_max_s=34.5 with a dispatch
// generation of 0): a step held "active" by a dead worker was only found by
// the oldest-first scan of queued runs, which is bounded per pass; behind a
// backlog of older queued runs it waited for asynq's own lease recovery
// (~35 s). Active tasks are checked on every pass, whatever the backlog.
func TestReaperRecoversStepHeldByDeadWorkerBehindBacklog(t *testing.T) {
	h := newHarness(t, feeQuote(23750))
	ctx := context.Background()

	// The backlog: an older queued run whose task waits in Redis (scheduled
	// an hour ahead), so a scan limited to one run sees only it.
	backlog := h.deliver(h.newCase(workflow.AutopilotSupervised, ""), "fee", true)
	task, err := jobs.NewAgentStepTask(jobs.StepPayload{RunID: backlog.ID, StepSeq: backlog.StepSeq, CaseID: backlog.CaseID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.client.Enqueue(task, asynq.TaskID(jobs.StepTaskID(backlog.ID, backlog.StepSeq, 0)),
		asynq.Queue(h.queues.Agent), asynq.ProcessIn(time.Hour)); err != nil {
		t.Fatal(err)
	}
	h.db.Exec(t, `UPDATE runs SET updated_at = now() - interval '1 minute' WHERE id = $1`, backlog.ID)

	hs := h.handlers("w")
	step := newHangFirst(hs.Step)
	mux := asynq.NewServeMux()
	mux.Handle(jobs.TypeAgentStep, step)
	mux.Handle(jobs.TypeAgentResume, hs.Resume)
	mux.Handle(jobs.TypeEmailSend, hs.Email)
	h.serve(mux)
	t.Cleanup(func() { close(step.release) }) // runs before Shutdown

	held := h.deliver(h.newCase(workflow.AutopilotSupervised, ""), "fee", false)
	waitClosed(t, "the step task to be held", step.hung)

	insp := asynq.NewInspector(h.redis)
	defer insp.Close()
	reaper := &jobs.Reaper{Store: h.st, Inspector: insp, Dispatch: h.dispatch, Queues: h.queues, Log: h.log, ScanLimit: 1}
	res, err := reaper.Reap(ctx)
	if err != nil || res.Runs != 1 {
		t.Fatalf("reap with a step held by a dead worker behind a backlog: %+v, %v; want 1 run re-dispatched", res, err)
	}
	if got := h.db.Int(t, `SELECT dispatch_gen FROM runs WHERE id = $1`, backlog.ID); got != 0 {
		t.Fatalf("the backlog run (its task scheduled) was re-dispatched: dispatch_gen %d", got)
	}
	h.waitRun(held.ID, workflow.RunParked)
	// A second pass finds nothing: the held run moved on, the backlog run's
	// task is still scheduled.
	if res, err := reaper.Reap(ctx); err != nil || res != (jobs.ReapResult{}) {
		t.Fatalf("reap after recovery: %+v, %v", res, err)
	}
}
