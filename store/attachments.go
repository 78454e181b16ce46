package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Attachment is one stored attachment of an inbound message (attachments
// table); its bytes are in the blobstore under SHA256.
type Attachment struct {
	ID             int64      `db:"id" json:"id"`
	MessageID      int64      `db:"message_id" json:"message_id"` // messages.id
	CaseID         *int64     `db:"case_id" json:"case_id"`       // nil while the message is an orphan
	PartIndex      int        `db:"part_index" json:"part_index"`
	Filename       string     `db:"filename" json:"filename"`
	ContentType    string     `db:"content_type" json:"content_type"`
	SizeBytes      int64      `db:"size_bytes" json:"size_bytes"`
	SHA256         string     `db:"sha256" json:"sha256"`
	Oversize       bool       `db:"oversize" json:"oversize"` // over ATTACHMENT_MAX_BYTES: stored and flagged
	DeliveredRunID *int64     `db:"delivered_run_id" json:"delivered_run_id"`
	DeliveredAt    *time.Time `db:"delivered_at" json:"delivered_at"` // counted as records delivered
	CreatedAt      time.Time  `db:"created_at" json:"created_at"`
}

const attachmentCols = `id, message_id, case_id, part_index, filename, content_type, size_bytes, sha256, oversize,
	delivered_run_id, delivered_at, created_at`

// InsertAttachments stores the attachment rows of a message (whose bytes
// the caller already put in the blobstore); rows already present for the
// same (message, part) are left alone.
func (t *Tx) InsertAttachments(ctx context.Context, messageID int64, caseID *int64, atts []Attachment) error {
	for i, a := range atts {
		_, err := t.exec(ctx, `INSERT INTO attachments (message_id, case_id, part_index, filename, content_type,
			size_bytes, sha256, oversize) VALUES ($1,$2,$3,$4,$5,$6,$7,$8) ON CONFLICT (message_id, part_index) DO NOTHING`,
			messageID, caseID, i, a.Filename, a.ContentType, a.SizeBytes, a.SHA256, a.Oversize)
		if err != nil {
			return fmt.Errorf("insert attachment %d of message %d: %w", i, messageID, translate(err))
		}
	}
	return nil
}

// AttachmentsOfCase lists a case's attachments, oldest first.
func (s *Store) AttachmentsOfCase(ctx context.Context, caseID int64) ([]Attachment, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+attachmentCols+` FROM attachments WHERE case_id = $1 ORDER BY id`, caseID)
	if err != nil {
		return nil, translate(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[Attachment])
	return out, translate(err)
}

// AttachmentsOfMessage lists a message's attachments in part order.
func (s *Store) AttachmentsOfMessage(ctx context.Context, messageID int64) ([]Attachment, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+attachmentCols+` FROM attachments WHERE message_id = $1 ORDER BY part_index`, messageID)
	if err != nil {
		return nil, translate(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[Attachment])
	return out, translate(err)
}

// GetAttachment loads an attachment; ErrNotFound.
func (s *Store) GetAttachment(ctx context.Context, id int64) (Attachment, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+attachmentCols+` FROM attachments WHERE id = $1`, id)
	if err != nil {
		return Attachment{}, translate(err)
	}
	a, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Attachment])
	if err != nil {
		return a, fmt.Errorf("attachment %d: %w", id, translate(err))
	}
	return a, nil
}

// MarkRecordsDelivered records that a RECORDS_READY or PARTIAL_DELIVERY
// run counted the attachments of message messageID as records delivered
// (the first run to do so keeps the mark); it returns how many were marked.
func (t *Tx) MarkRecordsDelivered(ctx context.Context, messageID, runID int64, at time.Time) (int64, error) {
	ct, err := t.exec(ctx, `UPDATE attachments SET delivered_run_id = $2, delivered_at = $3
		WHERE message_id = $1 AND delivered_at IS NULL`, messageID, runID, at)
	if err != nil {
		return 0, fmt.Errorf("mark records of message %d: %w", messageID, translate(err))
	}
	return ct.RowsAffected(), nil
}

// RetrievalTask is a download link in a records reply that a person must
// fetch (retrieval_tasks).
type RetrievalTask struct {
	ID        int64     `db:"id" json:"id"`
	CaseID    int64     `db:"case_id" json:"case_id"`
	MessageID int64     `db:"message_id" json:"message_id"`
	RunID     *int64    `db:"run_id" json:"run_id"`
	URL       string    `db:"url" json:"url"`
	Status    string    `db:"status" json:"status"` // pending | done | dismissed
	CreatedAt time.Time `db:"created_at" json:"created_at"`
}

// AddRetrievalTask records a pending retrieval of url for a case (once per
// message and URL); it reports whether a task was created.
func (t *Tx) AddRetrievalTask(ctx context.Context, caseID, messageID, runID int64, url string) (bool, error) {
	ct, err := t.exec(ctx, `INSERT INTO retrieval_tasks (case_id, message_id, run_id, url) VALUES ($1,$2,$3,$4)
		ON CONFLICT (message_id, url) DO NOTHING`, caseID, messageID, runID, url)
	if err != nil {
		return false, fmt.Errorf("add retrieval task of case %d: %w", caseID, translate(err))
	}
	return ct.RowsAffected() == 1, nil
}

// RetrievalTasksOfCase lists a case's retrieval tasks, oldest first.
func (s *Store) RetrievalTasksOfCase(ctx context.Context, caseID int64) ([]RetrievalTask, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, case_id, message_id, run_id, url, status, created_at
		FROM retrieval_tasks WHERE case_id = $1 ORDER BY id`, caseID)
	if err != nil {
		return nil, translate(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[RetrievalTask])
	return out, translate(err)
}
