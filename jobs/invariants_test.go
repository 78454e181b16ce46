package jobs_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/foiaflow/foiaflow/jobs"
	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/store/storetest"
	"github.com/foiaflow/foiaflow/workflow"
)

func stepTask(t *testing.T, runID int64, seq int) *asynq.Task {
	t.Helper()
	task, err := jobs.NewAgentStepTask(jobs.StepPayload{RunID: runID, StepSeq: seq})
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// Done-when 2: the same step delivered twice, or an old step_seq delivered
// late, changes nothing (I3).
func TestDuplicateAndLateStepsAreNoOps(t *testing.T) {
	t.Parallel()
	h := newHarness(t, feeQuote(23750))
	hs := h.handlers("direct")
	hs.Step.SkipDispatch = true // drive steps by hand
	caseID := h.newCase(workflow.AutopilotSupervised, "")
	run := h.deliver(caseID, "fee", true)
	ctx := context.Background()

	if err := hs.Step.ProcessTask(ctx, stepTask(t, run.ID, 0)); err != nil {
		t.Fatalf("step 0: %v", err)
	}
	after1, _ := h.st.GetRun(ctx, run.ID)
	if after1.StepSeq != 1 || after1.NextNode != workflow.NodeClassifyInbound {
		t.Fatalf("after step 0: seq=%d next=%s", after1.StepSeq, after1.NextNode)
	}
	// Duplicate delivery of step 0.
	if err := hs.Step.ProcessTask(ctx, stepTask(t, run.ID, 0)); err != nil {
		t.Fatalf("duplicate step 0: %v", err)
	}
	for seq := 1; seq <= 6; seq++ {
		if err := hs.Step.ProcessTask(ctx, stepTask(t, run.ID, seq)); err != nil {
			t.Fatalf("step %d: %v", seq, err)
		}
	}
	parked, _ := h.st.GetRun(ctx, run.ID)
	if parked.Status != workflow.RunParked || parked.StepSeq != 7 {
		t.Fatalf("run status=%s seq=%d, want parked at 7", parked.Status, parked.StepSeq)
	}
	calls := h.analyzer.Calls()
	// Late deliveries of every old step, and a duplicate of the last.
	for seq := 0; seq <= 6; seq++ {
		if err := hs.Step.ProcessTask(ctx, stepTask(t, run.ID, seq)); err != nil {
			t.Fatalf("late step %d: %v", seq, err)
		}
	}
	again, _ := h.st.GetRun(ctx, run.ID)
	if again.StepSeq != parked.StepSeq || again.Status != parked.Status || string(again.State) != string(parked.State) {
		t.Fatalf("late steps changed the run: %+v", again)
	}
	if n := h.db.Int(t, `SELECT count(*) FROM run_steps WHERE run_id=$1`, run.ID); n != 7 {
		t.Fatalf("run_steps = %d, want 7", n)
	}
	if n := h.db.Int(t, `SELECT count(*) FROM proposals WHERE case_id=$1`, caseID); n != 1 {
		t.Fatalf("proposals = %d, want 1", n)
	}
	if h.analyzer.Calls() != calls {
		t.Fatalf("late steps called the analyzer again")
	}
}

// A step retried after its node ran but before it committed reuses the
// stored LLM result instead of paying for the call again (I5).
func TestRetriedStepReusesStoredAnalysis(t *testing.T) {
	t.Parallel()
	h := newHarness(t, feeQuote(100))
	hs := h.handlers("direct")
	hs.Step.SkipDispatch = true
	caseID := h.newCase(workflow.AutopilotSupervised, "")
	run := h.deliver(caseID, "fee", true)
	ctx := context.Background()
	if err := hs.Step.ProcessTask(ctx, stepTask(t, run.ID, 0)); err != nil {
		t.Fatal(err)
	}
	// Hold the run's row lock so the classify step's commit fails after the
	// analyzer ran (the step's transaction times out), then retry it.
	blocker, err := h.st.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blocker.Exec(ctx, `SELECT 1 FROM runs WHERE id=$1 FOR NO KEY UPDATE`, run.ID); err != nil {
		t.Fatal(err)
	}
	// The deadline must outlast the node (analyzer call and its memo write,
	// slow on a loaded machine: 300 ms failed there with "remember
	// classify: context deadline exceeded") and end the commit blocked on
	// the held row.
	tctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	err = hs.Step.ProcessTask(tctx, stepTask(t, run.ID, 1))
	cancel()
	_ = blocker.Rollback(ctx)
	if err == nil {
		t.Fatal("step committed through a locked row")
	}
	if h.analyzer.Calls() != 1 {
		t.Fatalf("analyzer calls = %d, want 1", h.analyzer.Calls())
	}
	if err := hs.Step.ProcessTask(ctx, stepTask(t, run.ID, 1)); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if h.analyzer.Calls() != 1 {
		t.Fatalf("retried step called the analyzer again: %d calls", h.analyzer.Calls())
	}
	if n := h.db.Int(t, `SELECT count(*) FROM llm_calls WHERE run_id=$1 AND purpose='classify'`, run.ID); n != 1 {
		t.Fatalf("llm_calls = %d", n)
	}
}

// overlapAnalyzer counts how many analyses of one case run at once.
type overlapAnalyzer struct {
	mu       sync.Mutex
	inFlight int
	max      int
}

// Done-when 3: two workers racing one case never run two of its steps at
// once (I1), and contention does not exhaust retries.
func TestRacingWorkersSingleWriter(t *testing.T) {
	t.Parallel()
	ov := &overlapAnalyzer{}
	h := newHarness(t, func(r workflow.Reply) workflow.Analysis {
		ov.mu.Lock()
		ov.inFlight++
		if ov.inFlight > ov.max {
			ov.max = ov.inFlight
		}
		ov.mu.Unlock()
		time.Sleep(5 * time.Millisecond) // widen the window a second writer would need
		ov.mu.Lock()
		ov.inFlight--
		ov.mu.Unlock()
		return workflow.Analysis{Class: workflow.ClassAcknowledgment, Confidence: 0.9, Sentiment: workflow.SentimentNeutral,
			TrackingNumber: "R-1"}
	})
	h.startWorker("w1", h.handlers("w1"))
	h.startWorker("w2", h.handlers("w2"))
	caseID := h.newCase(workflow.AutopilotAuto, "")
	var runs []store.Run
	for i := 0; i < 6; i++ {
		r := h.deliver(caseID, "ack", false)
		runs = append(runs, r)
		// Every step task delivered a second time as well, to both workers' queue.
		_, _ = h.client.Enqueue(stepTask(t, r.ID, 0), asynq.Queue(h.queues.Agent), asynq.TaskID("dup-"+storetest.Suffix(4)))
	}
	for _, r := range runs {
		h.waitRun(r.ID, workflow.RunCompleted)
	}
	if ov.max != 1 {
		t.Fatalf("max concurrent analyses of one case = %d, want 1", ov.max)
	}
	// Step intervals of the case never overlap.
	rows, err := h.st.Pool().Query(context.Background(), `SELECT s.started_at, s.finished_at FROM run_steps s
		JOIN runs r ON r.id = s.run_id WHERE r.case_id = $1 ORDER BY s.started_at`, caseID)
	if err != nil {
		t.Fatal(err)
	}
	var prevEnd time.Time
	n := 0
	for rows.Next() {
		var s, e time.Time
		if err := rows.Scan(&s, &e); err != nil {
			t.Fatal(err)
		}
		if s.Before(prevEnd) {
			t.Fatalf("step starting %s overlaps one ending %s", s, prevEnd)
		}
		prevEnd, n = e, n+1
	}
	// An acknowledgment run is load, classify, update, decide, commit.
	if n != 6*5 {
		t.Fatalf("steps recorded = %d, want 30 (duplicates must not add steps)", n)
	}
	insp := asynq.NewInspector(h.redis)
	defer insp.Close()
	archived, err := insp.ListArchivedTasks(h.queues.Agent)
	if err != nil && err != asynq.ErrQueueNotFound {
		t.Fatal(err)
	}
	if len(archived) != 0 {
		t.Fatalf("%d tasks exhausted their retries under contention", len(archived))
	}
}

// Done-when 4a: a crash between commit and dispatch is healed by the outbox
// relay.
func TestOutboxRelayHealsLostDispatch(t *testing.T) {
	t.Parallel()
	h := newHarness(t, feeQuote(23750))
	hs := h.handlers("crashy")
	hs.Step.SkipDispatch = true // commits, then "crashes" before dispatching
	srv := h.startWorker("crashy", hs)
	caseID := h.newCase(workflow.AutopilotSupervised, "")
	run := h.deliver(caseID, "fee", false)
	waitFor(t, "step 0 committed", func() bool {
		r, _ := h.st.GetRun(context.Background(), run.ID)
		return r.StepSeq == 1
	})
	srv.Shutdown()
	if n := h.db.Int(t, `SELECT count(*) FROM outbox WHERE dispatched_at IS NULL`); n != 1 {
		t.Fatalf("undispatched outbox rows = %d, want 1", n)
	}
	h.startWorker("healthy", h.handlers("healthy"))
	// Nothing moves until the relay runs.
	if r, _ := h.st.GetRun(context.Background(), run.ID); r.StepSeq != 1 {
		t.Fatalf("run moved without its task: seq %d", r.StepSeq)
	}
	if n, err := h.dispatch.Relay(context.Background(), 0, 100); err != nil || n != 1 {
		t.Fatalf("relay dispatched %d rows: %v", n, err)
	}
	h.waitRun(run.ID, workflow.RunParked)
}

// Done-when 4b: Redis wiped mid-run (FLUSHDB) is healed by the reaper from
// Postgres alone.
func TestReaperHealsWipedRedis(t *testing.T) {
	// Own Redis DB: FLUSHDB must not touch other tests' queues.
	h := newHarnessDB(t, feeQuote(23750), 9)
	caseID := h.newCase(workflow.AutopilotSupervised, "")
	run := h.deliver(caseID, "fee", false) // task queued, no worker yet
	rdb := redis.NewClient(&redis.Options{Addr: storetest.RedisAddr(), DB: 9})
	defer rdb.Close()
	if err := rdb.FlushDB(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	h.startWorker("w", h.handlers("w"))
	insp := asynq.NewInspector(h.redis)
	defer insp.Close()
	reaper := &jobs.Reaper{Store: h.st, Inspector: insp, Dispatch: h.dispatch, Queues: h.queues, Log: h.log}
	res, err := reaper.Reap(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Runs != 1 {
		t.Fatalf("reaper re-dispatched %d runs, want 1", res.Runs)
	}
	parked := h.waitRun(run.ID, workflow.RunParked)
	g := gate(t, parked)
	// Wipe again after the decision is recorded but before any worker saw it.
	srvless := h.decideNoDispatch(caseID, g.ProposalID, g.Version)
	if err := rdb.FlushDB(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	res, err = reaper.Reap(context.Background())
	if err != nil || res.Decisions != 1 {
		t.Fatalf("reaper decisions = %d, %v", res.Decisions, err)
	}
	h.waitRun(run.ID, workflow.RunCompleted)
	storetestEventuallySent(t, h, 1)
	_ = srvless
}

// Done-when 6: replaying execute_action for an executed proposal sends
// nothing.
func TestReplayExecuteSendsNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, feeQuote(23750))
	h.startWorker("w", h.handlers("w"))
	caseID := h.newCase(workflow.AutopilotSupervised, "")
	run := h.deliver(caseID, "fee", false)
	g := gate(t, h.waitRun(run.ID, workflow.RunParked))
	h.decide(caseID, g.ProposalID, g.Version, workflow.DecisionApprove, "", "")
	done := h.waitRun(run.ID, workflow.RunCompleted)
	storetestEventuallySent(t, h, 1)

	// Rewind the checkpoint to execute_action and run it again.
	h.db.Exec(t, `UPDATE runs SET status='running', next_node='execute_action', finished_at=NULL WHERE id=$1`, run.ID)
	hs := h.handlers("replay")
	hs.Step.SkipDispatch = true
	if err := hs.Step.ProcessTask(context.Background(), stepTask(t, run.ID, done.StepSeq)); err != nil {
		t.Fatal(err)
	}
	if n := h.db.Int(t, `SELECT count(*) FROM email_sends WHERE case_id=$1`, caseID); n != 1 {
		t.Fatalf("email_sends = %d after replay, want 1", n)
	}
	if n := h.db.Int(t, `SELECT count(*) FROM outbox WHERE task_type='email:send'`); n != 1 {
		t.Fatalf("email outbox rows = %d after replay, want 1", n)
	}
	// The send itself redelivered does nothing either, once the worker's
	// send is recorded and its send lock released (the sender has the
	// email a moment before).
	key := workflow.ExecutionKey(g.ProposalKey, 1)
	waitFor(t, "the worker's send recorded and its lock released", func() bool {
		free, err := h.st.SendLockFree(context.Background(), key)
		return err == nil && free &&
			h.db.Int(t, `SELECT count(*) FROM email_sends WHERE execution_key = $1 AND status = 'SENT'`, key) == 1
	})
	send, err := jobs.NewEmailSendTask(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := hs.Email.ProcessTask(context.Background(), send); err != nil {
		t.Fatal(err)
	}
	if len(h.sender.Sent()) != 1 {
		t.Fatalf("sent %d emails after replays, want 1", len(h.sender.Sent()))
	}
}

// A step that keeps failing until its retries run out fails its run and
// opens an escalation instead of stranding the case.
func TestExhaustedRetriesFailRunAndEscalate(t *testing.T) {
	t.Parallel()
	h := newHarness(t, feeQuote(100))
	h.analyzer.err = errors.New("analyzer down")
	hs := h.handlers("direct")
	hs.Step.SkipDispatch = true
	caseID := h.newCase(workflow.AutopilotSupervised, "")
	run := h.deliver(caseID, "fee", true)
	if err := hs.Step.ProcessTask(context.Background(), stepTask(t, run.ID, 0)); err != nil {
		t.Fatal(err)
	}
	h.startWorker("w", h.handlers("w"))
	if _, err := h.client.Enqueue(stepTask(t, run.ID, 1), asynq.Queue(h.queues.Agent), asynq.MaxRetry(0)); err != nil {
		t.Fatal(err)
	}
	failed := h.waitRun(run.ID, workflow.RunFailed)
	if !strings.Contains(failed.Error, "analyzer down") {
		t.Fatalf("run error %q", failed.Error)
	}
	if n := h.db.Int(t, `SELECT count(*) FROM escalations WHERE case_id=$1 AND status='open'`, caseID); n != 1 {
		t.Fatalf("open escalations = %d, want 1", n)
	}
	if node := h.db.String(t, `SELECT node FROM run_steps WHERE run_id=$1 AND outcome='error'`, run.ID); node != workflow.NodeClassifyInbound {
		t.Fatalf("failed step node %q", node)
	}
}
