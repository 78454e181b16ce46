package jobs

import (
	"context"
	"fmt"

	"github.com/foiaflow/foiaflow/store"
)

// Reanalysis is a queued re-analysis: the reanalyses row's id and the
// inbound:reanalyze task id.
type Reanalysis struct {
	ID     int64
	TaskID string
}

// RequestReanalysis queues a new analysis of the stored inbound message
// msgID for actor (an admin) in one transaction: the reanalyses row and its
// inbound:reanalyze outbox row, dispatched after commit. The caller checks
// the message has stored raw bytes and a case; the worker parses and
// analyses it again, with no run and nothing sent.
func (u *UseCases) RequestReanalysis(ctx context.Context, msgID int64, actor string) (Reanalysis, error) {
	var res Reanalysis
	rows, err := u.Store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if res.ID, err = tx.InsertReanalysis(ctx, msgID, actor); err != nil {
			return err
		}
		res.TaskID, err = QueueReanalysis(ctx, tx, u.Queues, res.ID)
		return err
	})
	if err != nil {
		return Reanalysis{}, fmt.Errorf("reanalyze message %d: %w", msgID, err)
	}
	u.Dispatch.AfterCommit(ctx, rows)
	return res, nil
}
