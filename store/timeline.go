package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// RecordCounts sums up what a case received (the case timeline, issue 11).
type RecordCounts struct {
	MessagesReceived    int   `json:"messages_received"`    // inbound messages attached to the case
	AutomaticMessages   int   `json:"automatic_messages"`   // of which auto-replies, out-of-office, bulk, bounces
	UnparsedMessages    int   `json:"unparsed_messages"`    // of which kept unparsed (failed or oversize)
	AttachmentsReceived int   `json:"attachments_received"` // attachments of those messages
	AttachmentBytes     int64 `json:"attachment_bytes"`
	RecordsDelivered    int   `json:"records_delivered"`  // attachments a RECORDS_READY/PARTIAL_DELIVERY reply delivered
	RetrievalsPending   int   `json:"retrievals_pending"` // download links a person still has to fetch
}

// RecordCountsOfCase counts a case's records.
func (s *Store) RecordCountsOfCase(ctx context.Context, caseID int64) (RecordCounts, error) {
	var c RecordCounts
	err := s.pool.QueryRow(ctx, `SELECT
		  (SELECT count(*) FROM messages WHERE case_id = $1 AND direction = 'inbound'),
		  (SELECT count(*) FROM messages WHERE case_id = $1 AND direction = 'inbound' AND auto_kind <> ''),
		  (SELECT count(*) FROM messages WHERE case_id = $1 AND direction = 'inbound' AND parse_status <> 'parsed'),
		  (SELECT count(*) FROM attachments WHERE case_id = $1),
		  (SELECT COALESCE(sum(size_bytes), 0) FROM attachments WHERE case_id = $1),
		  (SELECT count(*) FROM attachments WHERE case_id = $1 AND delivered_at IS NOT NULL),
		  (SELECT count(*) FROM retrieval_tasks WHERE case_id = $1 AND status = 'pending')`, caseID).Scan(
		&c.MessagesReceived, &c.AutomaticMessages, &c.UnparsedMessages, &c.AttachmentsReceived, &c.AttachmentBytes,
		&c.RecordsDelivered, &c.RetrievalsPending)
	if err != nil {
		return c, fmt.Errorf("record counts of case %d: %w", caseID, translate(err))
	}
	return c, nil
}

// ActivityEntry is one line of a case's activity log.
type ActivityEntry struct {
	ID        int64           `db:"id" json:"id"`
	RunID     *int64          `db:"run_id" json:"run_id"`
	Kind      string          `db:"kind" json:"kind"` // message_received, records_received, proposal_gated, …
	Actor     string          `db:"actor" json:"actor"`
	Detail    json.RawMessage `db:"detail" json:"detail"`
	CreatedAt time.Time       `db:"created_at" json:"created_at"`
}

// ActivityOfCase returns the newest limit entries of a case's activity
// log, oldest first.
func (s *Store) ActivityOfCase(ctx context.Context, caseID int64, limit int) ([]ActivityEntry, error) {
	rows, err := s.pool.Query(ctx, `SELECT * FROM (SELECT id, run_id, kind, actor, detail, created_at FROM activity_log
		WHERE case_id = $1 ORDER BY id DESC LIMIT $2) t ORDER BY id`, caseID, limit)
	if err != nil {
		return nil, translate(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[ActivityEntry])
	return out, translate(err)
}
