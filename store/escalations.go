package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Escalation is a case handed to a person (seed 000 §3.8): why, who took
// it, and how it was resolved.
type Escalation struct {
	ID         int64      `db:"id" json:"id"`
	CaseID     int64      `db:"case_id" json:"case_id"`
	RunID      *int64     `db:"run_id" json:"run_id"`
	Key        string     `db:"escalation_key" json:"escalation_key"`
	Reason     string     `db:"reason" json:"reason"`
	Status     string     `db:"status" json:"status"` // open | resolved
	Assignee   string     `db:"assignee" json:"assignee"`
	AssignedAt *time.Time `db:"assigned_at" json:"assigned_at"`
	ResolvedBy string     `db:"resolved_by" json:"resolved_by"`
	Resolution string     `db:"resolution" json:"resolution"`
	CreatedAt  time.Time  `db:"created_at" json:"created_at"`
	ResolvedAt *time.Time `db:"resolved_at" json:"resolved_at"`
}

const escalationCols = `id, case_id::bigint AS case_id, run_id, escalation_key, reason, status, assignee, assigned_at,
	resolved_by, resolution, created_at, resolved_at`

// ErrEscalationResolved is returned when an assign or resolve finds the
// escalation resolved already.
var ErrEscalationResolved = errors.New("store: escalation already resolved")

// EscalationItem is an escalation with what a list shows of its case.
type EscalationItem struct {
	Escalation
	AgencyName string `db:"agency_name" json:"agency_name"`
	Subject    string `db:"subject" json:"subject"` // the case's
}

// ListEscalations returns escalations oldest first, filtered by status
// ("" = any) and case (0 = any), at most limit, each with its case's
// agency and subject. The one list of the JSON API and the desk.
func (s *Store) ListEscalations(ctx context.Context, status string, caseID int64, limit int) ([]EscalationItem, error) {
	rows, err := s.pool.Query(ctx, `SELECT x.*, a.name AS agency_name, c.subject FROM (
			SELECT `+escalationCols+` FROM escalations
			WHERE ($1 = '' OR status = $1) AND ($2 = 0 OR case_id = $2) ORDER BY created_at, id LIMIT $3) x
		JOIN cases c ON c.id = x.case_id JOIN agencies a ON a.id = c.agency_id
		ORDER BY x.created_at, x.id`, status, caseID, limit)
	if err != nil {
		return nil, fmt.Errorf("list escalations: %w", translate(err))
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[EscalationItem])
	if err != nil {
		return nil, fmt.Errorf("list escalations: %w", translate(err))
	}
	return out, nil
}

// AssignEscalation gives an open escalation to assignee (again, if it had
// one). ErrNotFound, ErrEscalationResolved.
func (t *Tx) AssignEscalation(ctx context.Context, id int64, assignee string) (Escalation, error) {
	return t.changeEscalation(ctx, id, `UPDATE escalations SET assignee = $2, assigned_at = now()
		WHERE id = $1 AND status = 'open' RETURNING `+escalationCols, id, assignee)
}

// ResolveEscalation closes an open escalation, recording who and how.
// ErrNotFound, ErrEscalationResolved.
func (t *Tx) ResolveEscalation(ctx context.Context, id int64, by, resolution string) (Escalation, error) {
	return t.changeEscalation(ctx, id, `UPDATE escalations SET status = 'resolved', resolved_at = now(), resolved_by = $2,
		resolution = $3 WHERE id = $1 AND status = 'open' RETURNING `+escalationCols, id, by, resolution)
}

func (t *Tx) changeEscalation(ctx context.Context, id int64, q string, args ...any) (Escalation, error) {
	rows, err := t.query(ctx, q, args...)
	if err != nil {
		return Escalation{}, fmt.Errorf("escalation %d: %w", id, translate(err))
	}
	e, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Escalation])
	if err == nil {
		return e, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return e, fmt.Errorf("escalation %d: %w", id, translate(err))
	}
	var exists bool
	if err := t.queryRow(ctx, `SELECT true FROM escalations WHERE id = $1`, id).Scan(&exists); err != nil {
		return e, fmt.Errorf("escalation %d: %w", id, translate(err))
	}
	return e, fmt.Errorf("escalation %d: %w", id, ErrEscalationResolved)
}

// ClaimEscalationNotices marks up to limit escalations not yet queued for
// the webhook as queued and returns their ids (the caller writes their
// outbox rows in the same transaction, so each is queued once).
func (t *Tx) ClaimEscalationNotices(ctx context.Context, limit int) ([]int64, error) {
	rows, err := t.query(ctx, `UPDATE escalations SET notify_queued_at = now() WHERE id IN (
		SELECT id FROM escalations WHERE notify_queued_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
		RETURNING id`, limit)
	if err != nil {
		return nil, fmt.Errorf("claim escalation notices: %w", translate(err))
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("claim escalation notices: %w", translate(err))
	}
	return ids, nil
}

// GetEscalation loads an escalation and whether the webhook has accepted
// its notice; ErrNotFound.
func (s *Store) GetEscalation(ctx context.Context, id int64) (Escalation, bool, error) {
	var notified bool
	rows, err := s.pool.Query(ctx, `SELECT `+escalationCols+`, notified_at IS NOT NULL AS notified FROM escalations WHERE id = $1`, id)
	if err != nil {
		return Escalation{}, false, fmt.Errorf("escalation %d: %w", id, translate(err))
	}
	type row struct {
		Escalation
		Notified bool `db:"notified"`
	}
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[row])
	if err != nil {
		return Escalation{}, false, fmt.Errorf("escalation %d: %w", id, translate(err))
	}
	notified = r.Notified
	return r.Escalation, notified, nil
}

// MarkEscalationNotified records that the webhook accepted the notice.
func (s *Store) MarkEscalationNotified(ctx context.Context, id int64) error {
	_, err := s.pool.Exec(ctx, `UPDATE escalations SET notified_at = now() WHERE id = $1 AND notified_at IS NULL`, id)
	return translate(err)
}
