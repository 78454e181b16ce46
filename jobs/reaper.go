package jobs

import (
	"context"
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
}

// ReapResult counts what one pass re-dispatched.
type ReapResult struct {
	Runs, Decisions, Emails int
}

// Reap runs one pass.
func (r *Reaper) Reap(ctx context.Context) (ReapResult, error) {
	var res ReapResult
	before := time.Now().Add(-r.Grace)
	runs, err := r.Store.StrandedCandidates(ctx, before, 500)
	if err != nil {
		return res, fmt.Errorf("reaper: runs: %w", err)
	}
	for _, run := range runs {
		ok, err := r.reapRun(ctx, run)
		if err != nil {
			return res, err
		}
		if ok {
			res.Runs++
		}
	}
	decs, err := r.Store.PendingDecisions(ctx, before, 500)
	if err != nil {
		return res, fmt.Errorf("reaper: decisions: %w", err)
	}
	for _, d := range decs {
		if r.missing(ctx, r.Queues.Agent, ResumeTaskID(d.ID)) {
			row, err := resumeOutbox(r.Queues, d.ID)
			if err != nil {
				return res, err
			}
			if err := r.Dispatch.enqueue(ctx, row); err != nil {
				return res, err
			}
			res.Decisions++
		}
	}
	sends, err := r.Store.PendingEmailSends(ctx, before, 500)
	if err != nil {
		return res, fmt.Errorf("reaper: email sends: %w", err)
	}
	for _, e := range sends {
		if r.missing(ctx, r.Queues.Email, EmailTaskID(e.ExecutionKey)) {
			row, err := emailOutbox(r.Queues, e.ExecutionKey, time.Now())
			if err != nil {
				return res, err
			}
			if err := r.Dispatch.enqueue(ctx, row); err != nil {
				return res, err
			}
			res.Emails++
		}
	}
	if res != (ReapResult{}) && r.Log != nil {
		r.Log.Info("reaper re-dispatched stranded work", zap.Int("runs", res.Runs), zap.Int("decisions", res.Decisions),
			zap.Int("emails", res.Emails))
	}
	return res, nil
}

// reapRun re-dispatches a queued/running run whose step task is gone, or is
// held "active" by a worker that no longer holds the case lock.
func (r *Reaper) reapRun(ctx context.Context, run store.Run) (bool, error) {
	id := StepTaskID(run.ID, run.StepSeq, run.DispatchGen)
	info, err := r.Inspector.GetTaskInfo(r.Queues.Agent, id)
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
	row, err := stepOutbox(r.Queues, run.ID, run.StepSeq, gen)
	if err != nil {
		return false, err
	}
	return true, r.Dispatch.enqueue(ctx, row)
}

func (r *Reaper) missing(ctx context.Context, queue, id string) bool {
	_, err := r.Inspector.GetTaskInfo(queue, id)
	return errors.Is(err, asynq.ErrTaskNotFound) || errors.Is(err, asynq.ErrQueueNotFound)
}
