package jobs

import (
	"context"
	"fmt"

	"github.com/foiaflow/foiaflow/store"
)

// RecordDecision records a reviewer's decision that the caller validated
// against the proposal (I7) and queues its resume, in one transaction: the
// decisions row, the agent:resume outbox row, the task id on the decision
// and the case's activity; the resume is dispatched after commit. It
// returns the stored decision with its id and TaskID. Errors:
// store.ErrConflict when the idempotency key or the proposal version was
// decided first (a racing decision: the caller answers as the winner did,
// or 409).
func (u *UseCases) RecordDecision(ctx context.Context, d store.Decision) (store.Decision, error) {
	rows, err := u.Store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if d, err = tx.InsertDecision(ctx, d); err != nil {
			return err
		}
		if d.TaskID, err = QueueResume(ctx, tx, u.Queues, d.ID); err != nil {
			return err
		}
		if err := tx.SetDecisionTask(ctx, d.ID, d.TaskID); err != nil {
			return err
		}
		return tx.LogActivity(ctx, d.CaseID, 0, "decision_recorded", d.Actor,
			map[string]any{"decision_id": d.ID, "action": d.Action, "proposal_id": d.ProposalID, "version": d.Version})
	})
	if err != nil {
		return store.Decision{}, fmt.Errorf("record decision: %w", err)
	}
	u.Dispatch.AfterCommit(ctx, rows)
	return d, nil
}
