package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// FollowupTriggerKey is the trigger key of the follow-up run for a case's
// follow-up date: one run per due date, however many sweeps see it (I4).
func FollowupTriggerKey(caseID int64, due time.Time) string {
	return fmt.Sprintf("followup:%d:%d", caseID, due.UTC().Unix())
}

// SweepFollowups starts one time_based_followup run for each case whose
// follow-up date is at or before now, in transactions of batch cases, then
// dispatches their first steps. It returns how many runs it created.
func SweepFollowups(ctx context.Context, st *store.Store, d *Dispatcher, q Queues, now time.Time, limit, batch int) (int, error) {
	due, err := st.DueFollowups(ctx, now, limit)
	if err != nil {
		return 0, fmt.Errorf("sweep: due follow-ups: %w", err)
	}
	created := 0
	for i := 0; i < len(due); i += batch {
		part := due[i:min(i+batch, len(due))]
		n := 0
		rows, err := st.InTx(ctx, func(tx *store.Tx) error {
			n = 0
			for _, f := range part {
				_, ok, err := StartRun(ctx, tx, q, store.NewRun{CaseID: f.CaseID, Trigger: workflow.TriggerFollowup,
					TriggerKey: FollowupTriggerKey(f.CaseID, f.NextFollowupAt)})
				if err != nil {
					return err
				}
				if ok {
					n++
				}
			}
			return nil
		})
		if err != nil {
			return created, fmt.Errorf("sweep: start runs: %w", err)
		}
		created += n
		if err := d.Dispatch(ctx, rows); err != nil {
			return created, fmt.Errorf("sweep: dispatch (relay will retry): %w", err)
		}
	}
	return created, nil
}
