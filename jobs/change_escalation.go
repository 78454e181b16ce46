package jobs

import (
	"context"
	"fmt"

	"github.com/foiaflow/foiaflow/store"
)

// AssignEscalation assigns the open escalation id to assignee on actor's
// word, with the escalation_assigned activity, in one transaction. Errors:
// store.ErrNotFound (no such escalation), store.ErrEscalationResolved.
func (u *UseCases) AssignEscalation(ctx context.Context, id int64, assignee, actor string) (store.Escalation, error) {
	return u.changeEscalation(ctx, id, "escalation_assigned", actor, func(tx *store.Tx) (store.Escalation, error) {
		return tx.AssignEscalation(ctx, id, assignee)
	})
}

// ResolveEscalation resolves the open escalation id by actor with the
// resolution note (may be empty), with the escalation_resolved activity,
// in one transaction. Errors: store.ErrNotFound (no such escalation),
// store.ErrEscalationResolved.
func (u *UseCases) ResolveEscalation(ctx context.Context, id int64, actor, resolution string) (store.Escalation, error) {
	return u.changeEscalation(ctx, id, "escalation_resolved", actor, func(tx *store.Tx) (store.Escalation, error) {
		return tx.ResolveEscalation(ctx, id, actor, resolution)
	})
}

// changeEscalation runs change and logs the activity kind in one
// transaction.
func (u *UseCases) changeEscalation(ctx context.Context, id int64, kind, actor string, change func(*store.Tx) (store.Escalation, error)) (store.Escalation, error) {
	var e store.Escalation
	_, err := u.Store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if e, err = change(tx); err != nil {
			return err
		}
		runID := int64(0)
		if e.RunID != nil {
			runID = *e.RunID
		}
		return tx.LogActivity(ctx, e.CaseID, runID, kind, actor,
			map[string]any{"escalation_id": id, "assignee": e.Assignee, "resolution": e.Resolution})
	})
	if err != nil {
		return store.Escalation{}, fmt.Errorf("%s %d: %w", kind, id, err)
	}
	return e, nil
}
