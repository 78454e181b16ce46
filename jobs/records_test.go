package jobs_test

import (
	"context"
	"testing"

	"github.com/foiaflow/foiaflow/store"
	"github.com/foiaflow/foiaflow/workflow"
)

// TestRecordsReadyRecordsDelivery: a RECORDS_READY reply marks its
// attachments delivered by the run and turns its download link into a
// pending retrieval task, on the case timeline (issue 11).
func TestRecordsReadyRecordsDelivery(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(r workflow.Reply) workflow.Analysis {
		return workflow.Analysis{Class: workflow.ClassRecordsReady, Confidence: 0.95, Sentiment: workflow.SentimentPositive,
			HasRecordsLink: true}
	})
	c := h.newCase(workflow.AutopilotSupervised, "")
	run := h.deliver(c, "The records are attached; the videos are available at https://city.nextrequest.com/requests/24-117.", false)
	mid := *run.TriggerMessageID
	cid := c
	_, err := h.st.InTx(context.Background(), func(tx *store.Tx) error {
		return tx.InsertAttachments(context.Background(), mid, &cid, []store.Attachment{
			{Filename: "report.pdf", ContentType: "application/pdf", SizeBytes: 4, SHA256: "0000000000000000000000000000000000000000000000000000000000000001"},
			{Filename: "log.csv", ContentType: "text/csv", SizeBytes: 4, SHA256: "0000000000000000000000000000000000000000000000000000000000000002"}})
	})
	if err != nil {
		t.Fatal(err)
	}
	h.startWorker("w1", h.handlers("w1"))
	h.waitRun(run.ID, workflow.RunParked, workflow.RunCompleted)
	if n := h.db.Int(t, `SELECT count(*) FROM attachments WHERE message_id = $1 AND delivered_run_id = $2 AND delivered_at IS NOT NULL`, mid, run.ID); n != 2 {
		t.Fatalf("%d attachments delivered", n)
	}
	tasks, err := h.st.RetrievalTasksOfCase(context.Background(), c)
	if err != nil || len(tasks) != 1 || tasks[0].URL != "https://city.nextrequest.com/requests/24-117" || tasks[0].Status != "pending" {
		t.Fatalf("retrieval tasks %+v %v", tasks, err)
	}
	if n := h.db.Int(t, `SELECT count(*) FROM activity_log WHERE case_id = $1 AND kind = 'records_received'
		AND (detail->>'attachments_delivered')::int = 2`, c); n != 1 {
		t.Fatal("no records_received entry on the timeline")
	}
	counts, err := h.st.RecordCountsOfCase(context.Background(), c)
	if err != nil || counts.RecordsDelivered != 2 || counts.RetrievalsPending != 1 || counts.AttachmentsReceived != 2 {
		t.Fatalf("counts %+v %v", counts, err)
	}
}
