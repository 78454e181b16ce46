package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"
)

// OutboxRow is a task a transaction wants enqueued (I2, I6). TaskID is the
// deterministic asynq TaskID (I4).
type OutboxRow struct {
	ID           int64           `db:"id"`
	TaskType     string          `db:"task_type"`
	TaskID       string          `db:"task_id"`
	Payload      json.RawMessage `db:"payload"`
	Queue        string          `db:"queue"`
	ProcessAt    time.Time       `db:"process_at"`
	CreatedAt    time.Time       `db:"created_at"`
	DispatchedAt *time.Time      `db:"dispatched_at"`
	Attempts     int             `db:"attempts"`
	LastError    string          `db:"last_error"`
}

// InsertOutbox adds a row; a row with the same TaskID already present is
// left alone (the insert is idempotent). The row is remembered for dispatch
// after commit either way. Queued (see Tx): its ID and CreatedAt are set
// when the transaction's next statement or commit has run.
func (t *Tx) InsertOutbox(ctx context.Context, r OutboxRow) error {
	if r.ProcessAt.IsZero() {
		r.ProcessAt = time.Now().UTC()
	}
	i := len(t.outbox)
	t.outbox = append(t.outbox, r)
	t.laterRow("insert outbox "+r.TaskID, func(row pgx.Row) error {
		return row.Scan(&t.outbox[i].ID, &t.outbox[i].CreatedAt)
	}, `
		INSERT INTO outbox (task_type, task_id, payload, queue, process_at)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (task_id) DO UPDATE SET task_id = excluded.task_id
		RETURNING id, created_at`, r.TaskType, r.TaskID, r.Payload, r.Queue, r.ProcessAt)
	return nil
}

// MarkDispatched stamps rows as handed to the queue.
func (s *Store) MarkDispatched(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := s.pool.Exec(ctx, `UPDATE outbox SET dispatched_at = now(), attempts = attempts + 1 WHERE id = ANY($1) AND dispatched_at IS NULL`, ids)
	return translate(err)
}

// MarkDispatchFailed records a failed dispatch attempt.
func (s *Store) MarkDispatchFailed(ctx context.Context, id int64, reason string) error {
	_, err := s.pool.Exec(ctx, `UPDATE outbox SET attempts = attempts + 1, last_error = $2 WHERE id = $1`, id, reason)
	return translate(err)
}

// PendingOutbox returns up to limit undispatched rows created before
// olderThan, oldest first.
func (s *Store) PendingOutbox(ctx context.Context, olderThan time.Time, limit int) ([]OutboxRow, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT id, task_type, task_id, payload, queue, process_at, created_at, dispatched_at, attempts, last_error
		FROM outbox WHERE dispatched_at IS NULL AND created_at < $1 ORDER BY id LIMIT $2`, olderThan, limit)
	if err != nil {
		return nil, translate(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[OutboxRow])
	return out, translate(err)
}

// OutboxByTaskID returns one outbox row; ErrNotFound when absent.
func (s *Store) OutboxByTaskID(ctx context.Context, taskID string) (OutboxRow, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT id, task_type, task_id, payload, queue, process_at, created_at, dispatched_at, attempts, last_error
		FROM outbox WHERE task_id = $1`, taskID)
	if err != nil {
		return OutboxRow{}, translate(err)
	}
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[OutboxRow])
	return r, translate(err)
}

// DeleteDispatchedOutbox removes dispatched rows older than before
// (retention); returns how many.
func (s *Store) DeleteDispatchedOutbox(ctx context.Context, before time.Time) (int64, error) {
	ct, err := s.pool.Exec(ctx, `DELETE FROM outbox WHERE dispatched_at IS NOT NULL AND dispatched_at < $1`, before)
	return ct.RowsAffected(), translate(err)
}
