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
	"github.com/foiaflow/foiaflow/workflow"
)

// TypeAgentStep runs one graph node of a run.
const TypeAgentStep = "agent:step"

// StepPayload names the run and the checkpoint version the task expects.
// CaseID lets the handler take the case lock before reading anything (one
// round-trip less); 0 (older payloads) reads the run first.
type StepPayload struct {
	RunID   int64 `json:"run_id"`
	StepSeq int   `json:"step_seq"`
	CaseID  int64 `json:"case_id,omitempty"`
}

// NewAgentStepTask builds the agent:step task of p. Tasks are enqueued
// through the outbox with the deterministic id StepTaskID (I4), never
// directly.
func NewAgentStepTask(p StepPayload) (*asynq.Task, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	return asynq.NewTask(TypeAgentStep, b), nil
}

// StepObserver is told about each executed step (metrics). May be nil.
type StepObserver func(node, outcome string, d time.Duration)

// AgentStepHandler runs agent:step tasks with the step protocol: case lock on
// a dedicated connection (busy → quick re-queue, no retry burnt), fence on
// step_seq, node outside any transaction, effects + checkpoint + outbox in
// one transaction, unlock, then dispatch of the outbox rows.
type AgentStepHandler struct {
	Store    *store.Store
	Graph    *workflow.CaseGraph
	Dispatch *Dispatcher
	Queues   Queues
	WorkerID string
	Log      *zap.Logger
	Clock    workflow.Clock
	Observe  StepObserver
	// SkipDispatch leaves committed outbox rows to the relay (tests simulate
	// a crash between commit and dispatch with it).
	SkipDispatch bool
}

// ProcessTask implements asynq.Handler: the step protocol with the fence of
// a graph step (the checkpoint still at the payload's step_seq, the run
// queued or running, no older active run of the case for a first step).
func (h *AgentStepHandler) ProcessTask(ctx context.Context, t *asynq.Task) error {
	p, err := decodePayload(t, func(p StepPayload) bool { return p.RunID > 0 })
	if err != nil {
		return err
	}
	caseID := p.CaseID
	if caseID == 0 {
		run, err := h.Store.GetRun(ctx, p.RunID)
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("agent:step run %d: %w", p.RunID, asynq.SkipRetry)
		}
		if err != nil {
			return err
		}
		caseID = run.CaseID
	}
	return h.protocol(ctx, caseID, p.RunID, func(ctx context.Context, run store.LockedRun, eng *workflow.CaseEngine) (workflow.StepResult, error) {
		if run.StepSeq != p.StepSeq || !run.Status.Active() {
			return workflow.StepResult{}, workflow.ErrStaleCheckpoint
		}
		if p.StepSeq == 0 && run.OlderActive {
			return workflow.StepResult{}, errCaseBusy
		}
		return eng.Step(ctx, run.RunState(), p.StepSeq)
	}, nil)
}

// finish maps the step's result to the task outcome and dispatches.
func (h *AgentStepHandler) finish(ctx context.Context, cm *committer, res workflow.StepResult, err error, runID int64, seq int, start time.Time) error {
	switch {
	case errors.Is(err, workflow.ErrStaleCheckpoint), errors.Is(err, workflow.ErrNotRunnable):
		h.Log.Debug("step fenced off", zap.Int64("run", runID), zap.Int("seq", seq), zap.Error(err))
		return nil
	case err != nil:
		h.Log.Warn("step failed", zap.Int64("run", runID), zap.Int("seq", seq), zap.Error(err))
		// The task's context may be past its deadline: record with a fresh
		// bound so that the reviewer sees why the run is retrying.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if IsFailure(err) {
			if rerr := h.Store.RecordStepError(rctx, runID, seq, err.Error()); rerr != nil {
				h.Log.Warn("recording step error", zap.Int64("run", runID), zap.Error(rerr))
			}
		}
		if h.Observe != nil {
			h.Observe("", "error", time.Since(start))
		}
		retried, ok1 := asynq.GetRetryCount(ctx)
		maxRetry, ok2 := asynq.GetMaxRetry(ctx)
		if ok1 && ok2 && retried >= maxRetry && IsFailure(err) {
			// Out of retries: fail the run visibly (escalation) instead of
			// leaving it for the reaper to retry forever.
			if ferr := h.Store.FailRun(rctx, runID, seq, res.Node, err.Error(), h.WorkerID); ferr != nil &&
				!errors.Is(ferr, workflow.ErrStaleCheckpoint) {
				return fmt.Errorf("%w (and failing the run: %v)", err, ferr)
			}
			return fmt.Errorf("%w: %w", err, asynq.SkipRetry)
		}
		return err
	}
	h.Log.Debug("step committed", zap.Int64("run", runID), zap.Int("seq", seq), zap.String("node", res.Node),
		zap.String("route", string(res.Route.Kind)), zap.String("status", string(res.Status)))
	if h.Observe != nil {
		h.Observe(res.Node, string(res.Route.Kind), time.Since(start))
	}
	if h.SkipDispatch {
		return nil
	}
	if derr := h.Dispatch.Dispatch(ctx, cm.outbox); derr != nil {
		// Committed: the relay will dispatch. Not a task failure.
		h.Log.Warn("dispatch after commit failed; relay will retry", zap.Int64("run", runID), zap.Error(derr))
	}
	return nil
}
