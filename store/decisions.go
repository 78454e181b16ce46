package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Decision is a reviewer's recorded decision on a proposal version (I7).
type Decision struct {
	ID            int64  `db:"id" json:"id"`
	CaseID        int64  `db:"case_id" json:"case_id"`
	ProposalID    int64  `db:"proposal_id" json:"proposal_id"`
	Version       int    `db:"version" json:"version"`
	Action        string `db:"action" json:"action"`
	Instruction   string `db:"instruction" json:"instruction,omitempty"`
	EditedSubject string `db:"edited_subject" json:"edited_subject,omitempty"`
	EditedText    string `db:"edited_text" json:"edited_text,omitempty"`
	// Reason is a REJECT's reason; PromoteVersion the earlier version a
	// PROMOTE makes current.
	Reason         string     `db:"reason" json:"reason,omitempty"`
	PromoteVersion *int       `db:"promote_version" json:"promote_version,omitempty"`
	Actor          string     `db:"actor" json:"actor"`
	IdempotencyKey string     `db:"idempotency_key" json:"idempotency_key"`
	RequestHash    string     `db:"request_hash" json:"-"`
	TaskID         string     `db:"task_id" json:"task_id"`
	Status         string     `db:"status" json:"status"`
	RejectReason   string     `db:"reject_reason" json:"reject_reason,omitempty"`
	CreatedAt      time.Time  `db:"created_at" json:"created_at"`
	AppliedAt      *time.Time `db:"applied_at" json:"applied_at"`
	// DispatchGen counts reaper re-dispatches of the resume task (I6).
	DispatchGen int `db:"dispatch_gen" json:"-"`
}

const decisionCols = `id, case_id, proposal_id, version, action, instruction, edited_subject, edited_text, reason, promote_version, actor,
	idempotency_key, request_hash, task_id, status, reject_reason, created_at, applied_at, dispatch_gen`

// InsertDecision records a decision. A second decision for the same proposal
// version, or the same idempotency key, is ErrConflict.
func (t *Tx) InsertDecision(ctx context.Context, d Decision) (Decision, error) {
	rows, err := t.query(ctx, `
		INSERT INTO decisions (case_id, proposal_id, version, action, instruction, edited_subject, edited_text, reason,
		                       promote_version, actor, idempotency_key, request_hash, task_id)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13) RETURNING `+decisionCols,
		d.CaseID, d.ProposalID, d.Version, d.Action, d.Instruction, d.EditedSubject, d.EditedText, d.Reason,
		d.PromoteVersion, d.Actor, d.IdempotencyKey, d.RequestHash, d.TaskID)
	if err != nil {
		return Decision{}, fmt.Errorf("insert decision: %w", translate(err))
	}
	out, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Decision])
	if err != nil {
		return Decision{}, fmt.Errorf("insert decision: %w", translate(err))
	}
	return out, nil
}

// SetDecisionTask stores the resume task id of a decision.
func (t *Tx) SetDecisionTask(ctx context.Context, id int64, taskID string) error {
	_, err := t.exec(ctx, `UPDATE decisions SET task_id = $2 WHERE id = $1`, id, taskID)
	return translate(err)
}

// GetDecision loads a decision; ErrNotFound.
func (s *Store) GetDecision(ctx context.Context, id int64) (Decision, error) {
	return s.oneDecision(ctx, `SELECT `+decisionCols+` FROM decisions WHERE id = $1`, id)
}

// DecisionByIdempotencyKey returns the decision recorded under key for the
// case; ErrNotFound.
func (s *Store) DecisionByIdempotencyKey(ctx context.Context, caseID int64, key string) (Decision, error) {
	return s.oneDecision(ctx, `SELECT `+decisionCols+` FROM decisions WHERE case_id = $1 AND idempotency_key = $2`, caseID, key)
}

func (s *Store) oneDecision(ctx context.Context, q string, args ...any) (Decision, error) {
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return Decision{}, translate(err)
	}
	d, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Decision])
	if err != nil {
		return d, fmt.Errorf("decision: %w", translate(err))
	}
	return d, nil
}

// MarkDecisionApplied records that the decision took effect.
func (t *Tx) MarkDecisionApplied(ctx context.Context, id int64) error {
	_, err := t.exec(ctx, `UPDATE decisions SET status = 'applied', applied_at = now() WHERE id = $1 AND status = 'accepted'`, id)
	return translate(err)
}

// RejectDecision marks a decision that could not be applied (stale by the
// time it ran, adjustment limit).
func (s *Store) RejectDecision(ctx context.Context, id int64, reason string) error {
	_, err := s.pool.Exec(ctx, `UPDATE decisions SET status = 'rejected', reject_reason = $2 WHERE id = $1 AND status = 'accepted'`, id, reason)
	return translate(err)
}

// RecentDecisionCount counts decisions on a case since since (rate limit).
func (s *Store) RecentDecisionCount(ctx context.Context, caseID int64, since time.Time) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM decisions WHERE case_id = $1 AND created_at >= $2`, caseID, since).Scan(&n)
	return n, translate(err)
}

// BumpDecisionGen increments the re-dispatch generation of a decision that
// is still accepted and returns it; false when it was applied or rejected.
func (s *Store) BumpDecisionGen(ctx context.Context, id int64) (int, bool, error) {
	var gen int
	err := s.pool.QueryRow(ctx, `UPDATE decisions SET dispatch_gen = dispatch_gen + 1
		WHERE id = $1 AND status = 'accepted' RETURNING dispatch_gen`, id).Scan(&gen)
	if err == pgx.ErrNoRows {
		return 0, false, nil
	}
	return gen, err == nil, translate(err)
}
