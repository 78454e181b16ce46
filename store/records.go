package store

import (
	"context"

	"github.com/foiaflow/foiaflow/workflow"
)

// RecordDelivery implements workflow.CaseTx: the reply's attachments are
// marked delivered by the run, each link becomes a pending retrieval task,
// and the case timeline gets a records_received entry.
func (t *Tx) RecordDelivery(ctx context.Context, d workflow.RecordDelivery) error {
	n, err := t.MarkRecordsDelivered(ctx, d.MessageID, d.RunID, d.At)
	if err != nil {
		return err
	}
	var tasks []string
	for _, u := range d.Links {
		created, err := t.AddRetrievalTask(ctx, d.CaseID, d.MessageID, d.RunID, u)
		if err != nil {
			return err
		}
		if created {
			tasks = append(tasks, u)
		}
	}
	if n == 0 && len(tasks) == 0 {
		return nil
	}
	return t.LogActivity(ctx, d.CaseID, d.RunID, "records_received", "agent", map[string]any{
		"message_id": d.MessageID, "class": d.Class, "attachments_delivered": n, "retrieval_tasks": tasks})
}
