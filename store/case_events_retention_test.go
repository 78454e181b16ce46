package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/foiaflow/foiaflow/store/storetest"
)

// Retention deletes old live events of closed cases only: an open case
// keeps its history however old, a closed case keeps its recent events.
func TestDeleteCaseEventsBeforeKeepsOpenCases(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	open, err := newCase(t, db, "TX")
	if err != nil {
		t.Fatal(err)
	}
	closed, err := newCase(t, db, "TX")
	if err != nil {
		t.Fatal(err)
	}
	db.Exec(t, `UPDATE cases SET status = 'completed' WHERE id = $1`, closed)
	for _, c := range []int64{open, closed} {
		db.Exec(t, `INSERT INTO case_events (case_id, type, step, created_at) VALUES
			($1, 'status', 'load_context', now() - interval '40 days'), ($1, 'completed', 'commit_state', now() - interval '1 day')`, c)
	}
	n, err := db.Store.DeleteCaseEventsBefore(context.Background(), time.Now().Add(-30*24*time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("deleted %d: %v", n, err)
	}
	if got := db.Int(t, `SELECT count(*) FROM case_events WHERE case_id = $1`, open); got != 2 {
		t.Fatalf("open case kept %d events, want 2", got)
	}
	if got := db.String(t, `SELECT string_agg(type, ',') FROM case_events WHERE case_id = $1`, closed); got != "completed" {
		t.Fatalf("closed case kept %q, want its recent event only", got)
	}
}
