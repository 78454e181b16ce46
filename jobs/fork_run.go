package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// Errors of ForkRun besides store.ErrNotFound (no such run) and
// workflow.ErrForkState (the edited state).
var (
	// ErrUnknownStep: the run has no such step in its history (never
	// reached, or removed by retention).
	ErrUnknownStep = errors.New("jobs: the run has no such step")
	// ErrStepNotForkable: the step is not a node of the graph (a resume,
	// which applied a human decision): a replay cannot start there.
	ErrStepNotForkable = errors.New("jobs: a replay cannot start at this step")
)

// ForkRequest asks for a replay of run RunID from its step Step (run_steps
// seq, 0-based): the new run re-runs that step's node from the state the
// step read, with State's top-level fields (optional, a JSON object of
// workflow.CaseState fields; null removes one) replacing the checkpoint's.
// Actor is who forked it.
type ForkRequest struct {
	RunID int64
	Step  int
	State json.RawMessage
	Actor string
}

// ForkRun forks a run from a chosen step's checkpoint into a new run of the
// same case (time travel; issue 13), in one transaction: the parent is
// locked, its checkpoint before the step rebuilt from its initial state and
// step deltas (workflow.StateAt), the edit applied (workflow.ForkState), and
// the replay run (runs.replay_of, replay_step, trigger key
// replay:<run>:<step>:<n>) inserted with the outbox row of its first step,
// which is dispatched after commit like any run's (the step protocol runs
// it). The replay proposes; it sends nothing without a human decision.
// Errors: store.ErrNotFound (no such run), ErrUnknownStep,
// ErrStepNotForkable, workflow.ErrForkState.
func (u *UseCases) ForkRun(ctx context.Context, req ForkRequest) (store.Run, error) {
	if req.Step < 0 {
		return store.Run{}, fmt.Errorf("step %d: %w (steps count from 0)", req.Step, ErrUnknownStep)
	}
	var run store.Run
	rows, err := u.Store.InTx(ctx, func(tx *store.Tx) error {
		src, err := tx.LockForkSource(ctx, req.RunID, req.Step)
		if err != nil {
			return err
		}
		node, checkpoint, err := forkPoint(src, req.Step)
		if err != nil {
			return err
		}
		key := fmt.Sprintf("replay:%d:%d:%d", src.ID, req.Step, src.Forks+1)
		st, err := workflow.ForkState(checkpoint, req.State, src.ID, key)
		if err != nil {
			return err
		}
		b, err := json.Marshal(st)
		if err != nil {
			return err
		}
		run, err = tx.CreateFork(ctx, store.NewFork{Parent: src.ID, Step: req.Step, By: req.Actor,
			Run: store.NewRun{CaseID: src.CaseID, Trigger: src.Trigger, TriggerKey: key,
				TriggerMessageID: src.TriggerMessageID, StartNode: node, State: b}})
		if err != nil {
			return err
		}
		row, err := stepOutbox(u.Queues, run.CaseID, run.ID, 0, 0)
		if err != nil {
			return err
		}
		if err := tx.InsertOutbox(ctx, row); err != nil {
			return err
		}
		return tx.LogActivity(ctx, run.CaseID, run.ID, "run_forked", req.Actor,
			map[string]any{"replay_of": src.ID, "replay_step": req.Step, "node": node, "edited": len(req.State) > 0})
	})
	if err != nil {
		return store.Run{}, fmt.Errorf("fork run %d from step %d: %w", req.RunID, req.Step, err)
	}
	u.Dispatch.AfterCommit(ctx, rows)
	return run, nil
}

// forkPoint returns the node of step seq of src and the state it read: the
// run's initial state (rebuilt from its trigger for runs older than
// migration 00071) with the deltas of the steps before it.
func forkPoint(src store.ForkSource, seq int) (string, json.RawMessage, error) {
	n := len(src.Steps)
	if n == 0 || src.Steps[n-1].Seq != seq {
		last := "no steps yet"
		if n > 0 {
			last = fmt.Sprintf("its last step is %d", src.Steps[n-1].Seq)
		}
		return "", nil, fmt.Errorf("run %d has no step %d (%s): %w", src.ID, seq, last, ErrUnknownStep)
	}
	deltas := make([]json.RawMessage, 0, seq)
	for i, s := range src.Steps[:n-1] {
		if s.Seq != i {
			return "", nil, fmt.Errorf("run %d: the history before step %d was removed by retention: %w", src.ID, seq, ErrUnknownStep)
		}
		deltas = append(deltas, s.StateDelta)
	}
	node := src.Steps[n-1].Node
	if !workflow.GraphNode(node) {
		return "", nil, fmt.Errorf("step %d of run %d is %q, not a node of the graph (a resume applies a human decision): %w",
			seq, src.ID, node, ErrStepNotForkable)
	}
	initial := src.InitialState
	if len(initial) == 0 {
		var err error
		initial, err = json.Marshal(workflow.CaseState{CaseID: src.CaseID, Trigger: src.Trigger, TriggerKey: src.TriggerKey,
			TriggerMessageID: src.TriggerMessageID})
		if err != nil {
			return "", nil, err
		}
	}
	cp, err := workflow.StateAt(initial, deltas...)
	if err != nil {
		return "", nil, fmt.Errorf("checkpoint of run %d before step %d: %w", src.ID, seq, err)
	}
	return node, cp, nil
}
