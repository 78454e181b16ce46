package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"

	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// decodePayload is the payload decoder of every task kind: JSON into P,
// then valid. An undecodable or invalid payload is asynq.SkipRetry
// (STYLE.md §2): retrying cannot fix it.
func decodePayload[P any](t *asynq.Task, valid func(P) bool) (P, error) {
	var p P
	err := json.Unmarshal(t.Payload(), &p)
	if err == nil && !valid(p) {
		err = errors.New("missing or invalid id")
	}
	if err != nil {
		return p, fmt.Errorf("%s payload %q: %v: %w", t.Type(), t.Payload(), err, asynq.SkipRetry)
	}
	return p, nil
}

// stepBody is what one task kind does inside the step protocol: fence the
// run it loaded under the case lock, then make one engine call (Step or
// Resume) whose commit goes through eng's Checkpointer.
type stepBody func(ctx context.Context, run store.LockedRun, eng *workflow.CaseEngine) (workflow.StepResult, error)

// protocol is the step protocol every agent task goes through (agent:step,
// agent:resume, and the reaper's re-dispatches of both): claim the case's
// advisory lock and load the run and its case in one round trip (busy →
// quick re-queue, no retry burnt; I1), let body fence on the loaded
// checkpoint (I3) and run one node whose effects, checkpoint and outbox rows
// commit in one transaction (I2) on the lock's connection, whose last round
// trip also releases the lock (without a commit, the lock is released
// alone), then map the outcome to the task's result and dispatch the
// committed outbox rows (finish). handled, when not nil, turns errors the
// task kind answers itself (a rejected decision) into the task's result
// first.
func (h *AgentStepHandler) protocol(ctx context.Context, caseID, runID int64, body stepBody, handled func(error) (bool, error)) error {
	start := time.Now()
	lock, run, err := h.Store.TryLockCaseRun(ctx, caseID, runID)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("run %d: %w", runID, asynq.SkipRetry)
	}
	if err != nil {
		return err
	}
	cm := &committer{lock: lock, queues: h.Queues, workerID: h.WorkerID, caseID: caseID}
	res, err := func() (workflow.StepResult, error) {
		defer lock.Unlock(ctx)
		if run.CaseID != caseID {
			return workflow.StepResult{}, fmt.Errorf("run %d belongs to case %d, not %d: %w", runID, run.CaseID, caseID, asynq.SkipRetry)
		}
		eng := workflow.CaseEngine{Graph: h.Graph, CP: cm, Memo: h.Store, Clock: h.Clock}
		// The node's first LoadCase answers with the case read with the lock.
		return body(store.WithCase(ctx, run.Case), run, &eng)
	}()
	if handled != nil {
		if ok, herr := handled(err); ok {
			return herr
		}
	}
	if errors.Is(err, errCaseBusy) || errors.Is(err, asynq.SkipRetry) {
		return err
	}
	return h.finish(ctx, cm, res, err, runID, run.StepSeq, start)
}
