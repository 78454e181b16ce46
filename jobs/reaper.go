package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
	"go.uber.org/zap"

	"github.com/foiaflow/foiaflow/store"
)

// Reaper finds work whose task vanished (Redis wiped) or whose worker died,
// and dispatches it again (I6). Postgres says what should be running; Redis
// is checked for the task; the case lock tells a dead worker from a slow one.
// Duplicates it may create are fenced by step_seq and the execution key.
type Reaper struct {
	Store     *store.Store
	Inspector *asynq.Inspector
	Dispatch  *Dispatcher
	Queues    Queues
	Log       *zap.Logger
	// Grace is how long work may sit untouched before it is checked.
	Grace time.Duration
	// ScanLimit bounds each oldest-first scan of a pass (runs, decisions,
	// sends, raw messages); 0 means 500.
	ScanLimit int
}

// ReapResult counts what one pass re-dispatched.
type ReapResult struct {
	Runs, Decisions, Emails, Parses int
}

// Reap runs one pass.
func (r *Reaper) Reap(ctx context.Context) (ReapResult, error) {
	var res ReapResult
	before := time.Now().Add(-r.Grace)
	limit := r.ScanLimit
	if limit <= 0 {
		limit = 500
	}
	done, err := r.reapActive(ctx, before, &res)
	if err != nil {
		return res, err
	}
	runs, err := r.Store.StrandedCandidates(ctx, before, limit)
	if err != nil {
		return res, fmt.Errorf("reaper: runs: %w", err)
	}
	for _, run := range runs {
		if done[activeKey{TypeAgentStep, run.ID}] {
			continue
		}
		ok, err := r.reapRun(ctx, run)
		if err != nil {
			return res, err
		}
		if ok {
			res.Runs++
		}
	}
	decs, err := r.Store.PendingDecisions(ctx, before, limit)
	if err != nil {
		return res, fmt.Errorf("reaper: decisions: %w", err)
	}
	for _, d := range decs {
		if done[activeKey{TypeAgentResume, d.ID}] {
			continue
		}
		ok, err := r.reapDecision(ctx, d)
		if err != nil {
			return res, err
		}
		if ok {
			res.Decisions++
		}
	}
	sends, err := r.Store.PendingEmailSends(ctx, before, limit)
	if err != nil {
		return res, fmt.Errorf("reaper: email sends: %w", err)
	}
	for _, e := range sends {
		ok, err := r.reapSend(ctx, e)
		if err != nil {
			return res, err
		}
		if ok {
			res.Emails++
		}
	}
	raws, err := r.Store.UnparsedRawMessages(ctx, before, limit)
	if err != nil {
		return res, fmt.Errorf("reaper: raw messages: %w", err)
	}
	for _, m := range raws {
		ok, err := r.reapParse(ctx, m)
		if err != nil {
			return res, err
		}
		if ok {
			res.Parses++
		}
	}
	if res != (ReapResult{}) && r.Log != nil {
		r.Log.Info("reaper re-dispatched stranded work", zap.Int("runs", res.Runs), zap.Int("decisions", res.Decisions),
			zap.Int("emails", res.Emails), zap.Int("parses", res.Parses))
	}
	return res, nil
}

// reapActive re-dispatches the work of tasks a dead worker left "active"
// (asynq itself recovers them only after their 30 s lease). There are at
// most as many as the fleet's concurrency, so every pass checks all of them
// first: the oldest-first scans below are bounded per pass, and behind a
// backlog of queued runs a killed worker's step would wait its turn there
// (I6: recovery within seconds, DESIGN.md).
// It returns the runs and decisions it re-dispatched, which the scans of
// the same pass skip.
func (r *Reaper) reapActive(ctx context.Context, before time.Time, res *ReapResult) (map[activeKey]bool, error) {
	done := map[activeKey]bool{}
	var tasks []*asynq.TaskInfo
	for _, q := range []string{r.Queues.Agent, r.Queues.Recovery} {
		ts, err := r.Inspector.ListActiveTasks(q, asynq.PageSize(1000))
		if err != nil && !errors.Is(err, asynq.ErrQueueNotFound) {
			return done, fmt.Errorf("reaper: active tasks of %s: %w", q, err)
		}
		tasks = append(tasks, ts...)
	}
	for _, t := range tasks {
		var ok bool
		switch t.Type {
		case TypeAgentStep:
			var p StepPayload
			if json.Unmarshal(t.Payload, &p) != nil {
				continue
			}
			run, err := r.Store.GetRun(ctx, p.RunID)
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			if err != nil {
				return done, fmt.Errorf("reaper: active %s: %w", t.ID, err)
			}
			if run.StepSeq != p.StepSeq || !run.UpdatedAt.Before(before) || !run.Status.Active() {
				continue
			}
			if ok, err = r.reapRun(ctx, run); err != nil {
				return done, err
			}
			if ok {
				res.Runs++
				done[activeKey{TypeAgentStep, run.ID}] = true
			}
		case TypeAgentResume:
			var p ResumePayload
			if json.Unmarshal(t.Payload, &p) != nil {
				continue
			}
			d, err := r.Store.GetDecision(ctx, p.DecisionID)
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			if err != nil {
				return done, fmt.Errorf("reaper: active %s: %w", t.ID, err)
			}
			if d.Status != "accepted" || !d.CreatedAt.Before(before) {
				continue
			}
			if ok, err = r.reapDecision(ctx, d); err != nil {
				return done, err
			}
			if ok {
				res.Decisions++
				done[activeKey{TypeAgentResume, d.ID}] = true
			}
		}
	}
	return done, nil
}

// activeKey names the work of a task kind: a run (agent:step) or a
// decision (agent:resume).
type activeKey struct {
	kind string
	id   int64
}

// reapRun re-dispatches a queued/running run whose step task is gone, or is
// held "active" by a worker that no longer holds the case lock.
func (r *Reaper) reapRun(ctx context.Context, run store.Run) (bool, error) {
	id := StepTaskID(run.ID, run.StepSeq, run.DispatchGen)
	info, err := r.Inspector.GetTaskInfo(r.Queues.AgentFor(run.DispatchGen), id)
	switch {
	case err == nil && info.State != asynq.TaskStateActive && info.State != asynq.TaskStateArchived &&
		info.State != asynq.TaskStateCompleted:
		return false, nil // pending, scheduled or retry: it will run
	case err == nil && info.State == asynq.TaskStateActive:
		free, err := r.Store.CaseLockFree(ctx, run.CaseID)
		if err != nil || !free {
			return false, err // a live worker is on it
		}
	case err != nil && !errors.Is(err, asynq.ErrTaskNotFound) && !errors.Is(err, asynq.ErrQueueNotFound):
		return false, fmt.Errorf("reaper: inspect %s: %w", id, err)
	}
	gen, ok, err := r.Store.BumpDispatchGen(ctx, run.ID, run.StepSeq)
	if err != nil || !ok {
		return false, err
	}
	row, err := stepOutbox(r.Queues, run.CaseID, run.ID, run.StepSeq, gen)
	if err != nil {
		return false, err
	}
	if r.Log != nil {
		why := "task missing"
		if info != nil {
			why = "task " + info.State.String() + ", case lock free"
		}
		r.Log.Info("reaper re-dispatching run", zap.Int64("run", run.ID), zap.Int64("case", run.CaseID), zap.Int("seq", run.StepSeq),
			zap.Int("gen", gen), zap.String("why", why), zap.Duration("idle", time.Since(run.UpdatedAt)))
	}
	return true, r.Dispatch.enqueue(ctx, row)
}

// reapDecision re-dispatches the resume of an accepted decision whose task
// is gone, or is held "active" by a worker that does not hold the case lock
// (a dead worker: asynq would only recover it after its lease, 30–90 s).
// A second resume is harmless: it re-checks the decision and the gate under
// the case lock, and the checkpoint CAS fences it (I3, I7).
func (r *Reaper) reapDecision(ctx context.Context, d store.Decision) (bool, error) {
	stranded, err := r.stranded(ctx, r.Queues.AgentFor(d.DispatchGen), resumeTaskID(d.ID, d.DispatchGen), func() (bool, error) {
		return r.Store.CaseLockFree(ctx, d.CaseID)
	})
	if err != nil || !stranded {
		return false, err
	}
	gen, ok, err := r.Store.BumpDecisionGen(ctx, d.ID)
	if err != nil || !ok {
		return false, err
	}
	row, err := resumeOutbox(r.Queues, d.ID, gen)
	if err != nil {
		return false, err
	}
	return true, r.Dispatch.enqueue(ctx, row)
}

// reapSend re-dispatches a QUEUED/SENDING send whose task is gone, or is
// held "active" by a worker that does not hold the send's lock. Sends hold
// that lock from BeginSend to MarkSent, so a free lock means nobody is
// sending it; a re-dispatched duplicate waits for the lock and then finds
// the row SENT (I5).
func (r *Reaper) reapSend(ctx context.Context, e store.EmailSendRow) (bool, error) {
	stranded, err := r.stranded(ctx, r.Queues.Email, emailTaskID(e.ExecutionKey, e.DispatchGen), func() (bool, error) {
		return r.Store.SendLockFree(ctx, e.ExecutionKey)
	})
	if err != nil || !stranded {
		return false, err
	}
	gen, ok, err := r.Store.BumpSendGen(ctx, e.ExecutionKey)
	if err != nil || !ok {
		return false, err
	}
	row, err := emailOutbox(r.Queues, e.ExecutionKey, time.Now(), gen)
	if err != nil {
		return false, err
	}
	return true, r.Dispatch.enqueue(ctx, row)
}

// reapParse re-dispatches the parse of a stored raw message whose task is
// gone (Redis wiped: the webhook already answered 2xx, so the message must
// not be lost), or is held "active" by a worker that does not hold the raw
// message's lock. A duplicate parse is a no-op (FinishRawMessage fences).
func (r *Reaper) reapParse(ctx context.Context, m store.RawMessage) (bool, error) {
	stranded, err := r.stranded(ctx, r.Queues.AgentFor(m.DispatchGen), InboundParseTaskID(m.ID, m.DispatchGen), func() (bool, error) {
		return r.Store.RawMessageLockFree(ctx, m.ID)
	})
	if err != nil || !stranded {
		return false, err
	}
	gen, ok, err := r.Store.BumpRawDispatchGen(ctx, m.ID)
	if err != nil || !ok {
		return false, err
	}
	row, err := parseOutbox(r.Queues, m.ID, gen)
	if err != nil {
		return false, err
	}
	return true, r.Dispatch.enqueue(ctx, row)
}

// stranded says whether task id needs a new dispatch: it is missing,
// archived or completed, or active while lockFree reports that no live
// worker holds the lock guarding its work. Pending, scheduled and retry
// tasks will run.
func (r *Reaper) stranded(ctx context.Context, queue, id string, lockFree func() (bool, error)) (bool, error) {
	info, err := r.Inspector.GetTaskInfo(queue, id)
	switch {
	case errors.Is(err, asynq.ErrTaskNotFound), errors.Is(err, asynq.ErrQueueNotFound):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("reaper: inspect %s: %w", id, err)
	case info.State == asynq.TaskStateActive:
		return lockFree()
	}
	return info.State == asynq.TaskStateArchived || info.State == asynq.TaskStateCompleted, nil
}
