package jobs

import (
	"context"
	"fmt"

	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// NewCase is a validated case to open: the row, the agency's sender
// allowlist when given (nil leaves it as it is), who opens it, and whether
// its initial request is drafted and gated by an initial_request run.
type NewCase struct {
	Case               store.NewCase
	AllowedSenders     *[]string
	Actor              string
	SendInitialRequest bool
}

// CreateCase opens a case in one transaction: the cases row (and agency),
// the allowlist, the case_created activity and, with SendInitialRequest,
// the initial_request run (trigger key initial:<case>) with the outbox row
// of its first step (StartRun), dispatched after commit. It returns the
// case id and the run id (nil without a run). Errors are the store's
// (store.ErrConflict for a constraint the caller did not validate).
func (u *UseCases) CreateCase(ctx context.Context, n NewCase) (int64, *int64, error) {
	var caseID int64
	var runID *int64
	rows, err := u.Store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if caseID, err = tx.CreateCase(ctx, n.Case); err != nil {
			return err
		}
		if n.AllowedSenders != nil {
			if err := tx.SetAllowedSenders(ctx, caseID, *n.AllowedSenders); err != nil {
				return err
			}
		}
		if err := tx.LogActivity(ctx, caseID, 0, "case_created", n.Actor, map[string]any{"send_initial_request": n.SendInitialRequest}); err != nil {
			return err
		}
		if !n.SendInitialRequest {
			return nil
		}
		run, _, err := StartRun(ctx, tx, u.Queues, store.NewRun{CaseID: caseID, Trigger: workflow.TriggerInitialRequest,
			TriggerKey: fmt.Sprintf("initial:%d", caseID)})
		runID = &run.ID
		return err
	})
	if err != nil {
		return 0, nil, fmt.Errorf("create case: %w", err)
	}
	u.Dispatch.AfterCommit(ctx, rows)
	return caseID, runID, nil
}
