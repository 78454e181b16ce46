package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// The case list and proposal list pages of the API (GET /v1/cases,
// GET /v1/proposals); the reviewer desk's queue is in review_queue.go.

// CaseSummary is one row of the case list of the API.
type CaseSummary struct {
	ID               int64      `db:"id" json:"id"`
	AgencyName       string     `db:"agency_name" json:"agency_name"`
	JurisdictionCode *string    `db:"jurisdiction_code" json:"jurisdiction"`
	Subject          string     `db:"subject" json:"subject"`
	Status           string     `db:"status" json:"status"`
	AutopilotMode    string     `db:"autopilot_mode" json:"autopilot_mode"`
	Paused           bool       `db:"paused" json:"paused"`
	DueAt            *time.Time `db:"due_at" json:"due_at"`
	NextFollowupAt   *time.Time `db:"next_followup_at" json:"next_followup_at"`
	PendingProposals int64      `db:"pending_proposals" json:"pending_proposals"`
	CreatedAt        time.Time  `db:"created_at" json:"created_at"`
	UpdatedAt        time.Time  `db:"updated_at" json:"updated_at"`
}

// CaseFilter selects a page of cases: newest first, ids below Before
// (0 = from the newest), Status ("" = any), at most Limit rows.
type CaseFilter struct {
	Status string
	Before int64
	Limit  int
}

// ListCases returns a page of cases newest first (keyset pagination on id).
func (s *Store) ListCases(ctx context.Context, f CaseFilter) ([]CaseSummary, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT c.id, a.name AS agency_name, c.jurisdiction_code, c.subject, c.status, c.autopilot_mode, c.paused,
		       c.due_at, c.next_followup_at, c.created_at, c.updated_at,
		       (SELECT count(*) FROM proposals p WHERE p.case_id = c.id AND p.status = 'PENDING_APPROVAL') AS pending_proposals
		FROM cases c JOIN agencies a ON a.id = c.agency_id
		WHERE ($1 = '' OR c.status = $1) AND ($2 = 0 OR c.id < $2)
		ORDER BY c.id DESC LIMIT $3`, f.Status, f.Before, f.Limit)
	if err != nil {
		return nil, fmt.Errorf("list cases: %w", translate(err))
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[CaseSummary])
	if err != nil {
		return nil, fmt.Errorf("list cases: %w", translate(err))
	}
	return out, nil
}

// ProposalFilter selects a page of proposals: newest first, ids below
// Before (0 = from the newest), Status and CaseID ("" / 0 = any), at most
// Limit rows.
type ProposalFilter struct {
	Status string
	CaseID int64
	Before int64
	Limit  int
}

// ProposalsPage returns a page of proposals (without versions).
func (s *Store) ProposalsPage(ctx context.Context, f ProposalFilter) ([]Proposal, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+proposalCols+` FROM proposals
		WHERE ($1 = '' OR status = $1) AND ($2 = 0 OR case_id = $2) AND ($3 = 0 OR id < $3)
		ORDER BY id DESC LIMIT $4`, f.Status, f.CaseID, f.Before, f.Limit)
	if err != nil {
		return nil, fmt.Errorf("list proposals: %w", translate(err))
	}
	defer rows.Close()
	out := []Proposal{}
	for rows.Next() {
		p, err := scanProposal(rows)
		if err != nil {
			return nil, fmt.Errorf("list proposals: %w", translate(err))
		}
		out = append(out, p)
	}
	return out, translate(rows.Err())
}
