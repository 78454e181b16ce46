package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/foiaflow/foiaflow/workflow"
)

// PendingAppeal is an appeal proposal still awaiting a reviewer, with the
// appeal deadline of its case (UTC) and the agency's time zone.
type PendingAppeal struct {
	ProposalID int64     `db:"proposal_id"`
	CaseID     int64     `db:"case_id"`
	RunID      int64     `db:"run_id"`
	Deadline   time.Time `db:"appeal_deadline"`
	Timezone   string    `db:"timezone"`
}

// PendingAppealsClosingBy lists up to limit SEND_APPEAL proposals in
// PENDING_APPROVAL whose case's appeal deadline is at or before by, oldest
// deadline first, skipping those that already have the escalation named
// keyPrefix + proposal id.
func (s *Store) PendingAppealsClosingBy(ctx context.Context, by time.Time, keyPrefix string, limit int) ([]PendingAppeal, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT p.id AS proposal_id, p.case_id, p.run_id, c.appeal_deadline, a.timezone
		FROM proposals p JOIN cases c ON c.id = p.case_id JOIN agencies a ON a.id = c.agency_id
		WHERE p.status = 'PENDING_APPROVAL' AND p.action_type = $1
		  AND c.appeal_deadline IS NOT NULL AND c.appeal_deadline <= $2
		  AND NOT EXISTS (SELECT 1 FROM escalations e WHERE e.escalation_key = $3 || p.id)
		ORDER BY c.appeal_deadline, p.id LIMIT $4`, workflow.ActionSendAppeal, by, keyPrefix, limit)
	if err != nil {
		return nil, fmt.Errorf("pending appeals: %w", translate(err))
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[PendingAppeal])
	if err != nil {
		return nil, fmt.Errorf("pending appeals: %w", translate(err))
	}
	return out, nil
}

// AddProposalWarning appends warning to the proposal's warnings (shown in
// the review queue) unless it is already there.
func (t *Tx) AddProposalWarning(ctx context.Context, proposalID int64, warning string) error {
	_, err := t.exec(ctx, `UPDATE proposals SET warnings = array_append(warnings, $2), updated_at = now()
		WHERE id = $1 AND NOT ($2 = ANY(warnings))`, proposalID, warning)
	if err != nil {
		return fmt.Errorf("warn proposal %d: %w", proposalID, translate(err))
	}
	return nil
}
