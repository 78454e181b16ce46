package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// QueueItem is one proposal waiting for a reviewer, with what the queue
// page shows of its case.
type QueueItem struct {
	ProposalID      int64     `db:"proposal_id"`
	CaseID          int64     `db:"case_id"`
	Action          string    `db:"action_type"`
	Version         int       `db:"current_version"`
	PauseReason     string    `db:"pause_reason"`
	Confidence      float64   `db:"confidence"`
	FeeCents        *int64    `db:"fee_cents"`
	FeeCurrency     string    `db:"fee_currency"` // ISO 4217 of FeeCents
	AgencyName      string    `db:"agency_name"`
	Jurisdiction    string    `db:"jurisdiction"`
	Subject         string    `db:"subject"`
	CreatedAt       time.Time `db:"created_at"`
	OpenEscalations int64     `db:"open_escalations"` // of the case
}

// QueueFilter narrows the review queue; zero values match everything.
type QueueFilter struct {
	Agency       string    // case-insensitive substring of the agency name
	Action       string    // exact action type, e.g. APPROVE_FEE
	Jurisdiction string    // exact jurisdiction code, e.g. TX
	CreatedTo    time.Time // only proposals created at or before this instant (age filter)
	Limit        int       // at most this many rows (0: 200)
}

// ReviewQueue returns the proposals pending approval, oldest first.
func (s *Store) ReviewQueue(ctx context.Context, f QueueFilter) ([]QueueItem, error) {
	if f.Limit <= 0 {
		f.Limit = 200
	}
	var to *time.Time
	if !f.CreatedTo.IsZero() {
		to = &f.CreatedTo
	}
	rows, err := s.pool.Query(ctx, `
		SELECT p.id AS proposal_id, p.case_id, p.action_type, p.current_version, p.pause_reason, p.confidence,
		       p.fee_cents, p.fee_currency, a.name AS agency_name, COALESCE(c.jurisdiction_code, '') AS jurisdiction, c.subject,
		       p.created_at,
		       (SELECT count(*) FROM escalations e WHERE e.case_id = c.id AND e.status = 'open') AS open_escalations
		FROM proposals p JOIN cases c ON c.id = p.case_id JOIN agencies a ON a.id = c.agency_id
		WHERE p.status = 'PENDING_APPROVAL'
		  AND ($1 = '' OR a.name ILIKE '%' || $1 || '%')
		  AND ($2 = '' OR p.action_type = $2)
		  AND ($3 = '' OR c.jurisdiction_code = $3)
		  AND ($4::timestamptz IS NULL OR p.created_at <= $4)
		ORDER BY p.created_at, p.id LIMIT $5`, f.Agency, f.Action, f.Jurisdiction, to, f.Limit)
	if err != nil {
		return nil, fmt.Errorf("review queue: %w", translate(err))
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[QueueItem])
	if err != nil {
		return nil, fmt.Errorf("review queue: %w", translate(err))
	}
	return out, nil
}

// QueueFacets are the values the queue's filters offer: the actions,
// agencies and jurisdictions of pending proposals, each sorted.
type QueueFacets struct {
	Actions, Agencies, Jurisdictions []string
}

// ReviewQueueFacets returns the filter values of the pending proposals.
func (s *Store) ReviewQueueFacets(ctx context.Context) (QueueFacets, error) {
	var f QueueFacets
	err := s.pool.QueryRow(ctx, `
		SELECT COALESCE(array_agg(DISTINCT p.action_type ORDER BY p.action_type), '{}'),
		       COALESCE(array_agg(DISTINCT a.name ORDER BY a.name), '{}'),
		       COALESCE(array_agg(DISTINCT c.jurisdiction_code ORDER BY c.jurisdiction_code)
		                FILTER (WHERE c.jurisdiction_code IS NOT NULL), '{}')
		FROM proposals p JOIN cases c ON c.id = p.case_id JOIN agencies a ON a.id = c.agency_id
		WHERE p.status = 'PENDING_APPROVAL'`).Scan(&f.Actions, &f.Agencies, &f.Jurisdictions)
	if err != nil {
		return f, fmt.Errorf("review queue facets: %w", translate(err))
	}
	return f, nil
}
