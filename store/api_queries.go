package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// JurisdictionExists reports whether code (case-insensitive, e.g. "TX") is
// a row of the jurisdictions table.
func (s *Store) JurisdictionExists(ctx context.Context, code string) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM jurisdictions WHERE code = $1)`,
		strings.ToUpper(code)).Scan(&ok)
	return ok, translate(err)
}

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

// UpdateCaseSettings changes the reviewer-controlled settings of a case:
// autopilot mode and paused (nil leaves a value unchanged). ErrNotFound for
// an unknown case, ErrConflict for an invalid mode.
func (t *Tx) UpdateCaseSettings(ctx context.Context, caseID int64, mode *string, paused *bool) error {
	ct, err := t.tx.Exec(ctx, `UPDATE cases SET autopilot_mode = COALESCE($2, autopilot_mode),
		paused = COALESCE($3, paused), updated_at = now() WHERE id = $1`, caseID, mode, paused)
	if err != nil {
		return fmt.Errorf("update settings of case %d: %w", caseID, translate(err))
	}
	if ct.RowsAffected() == 0 {
		return fmt.Errorf("case %d: %w", caseID, ErrNotFound)
	}
	return nil
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

// VersionsOfCase returns every proposal version of a case keyed by
// proposal id, each list in version order.
func (s *Store) VersionsOfCase(ctx context.Context, caseID int64) (map[int64][]ProposalVersion, error) {
	rows, err := s.pool.Query(ctx, `SELECT v.proposal_id, v.version, v.source, v.subject, v.body_text, v.body_html,
		       v.feedback, v.author, v.promoted_from, v.created_at
		FROM proposal_versions v JOIN proposals p ON p.id = v.proposal_id
		WHERE p.case_id = $1 ORDER BY v.proposal_id, v.version`, caseID)
	if err != nil {
		return nil, fmt.Errorf("versions of case %d: %w", caseID, translate(err))
	}
	defer rows.Close()
	out := map[int64][]ProposalVersion{}
	for rows.Next() {
		var pid int64
		var v ProposalVersion
		if err := rows.Scan(&pid, &v.Version, &v.Source, &v.Subject, &v.BodyText, &v.BodyHTML, &v.Feedback,
			&v.Author, &v.PromotedFrom, &v.CreatedAt); err != nil {
			return nil, fmt.Errorf("versions of case %d: %w", caseID, translate(err))
		}
		out[pid] = append(out[pid], v)
	}
	return out, translate(rows.Err())
}

// StepCount is the number of recorded steps of one node with one outcome.
type StepCount struct {
	Node    string `db:"node"`
	Outcome string `db:"outcome"`
	N       int64  `db:"n"`
}

// OpsSnapshot is what the API's /metrics reads from Postgres on a scrape.
type OpsSnapshot struct {
	RunsByStatus      map[string]int64
	ProposalsByStatus map[string]int64
	Steps             []StepCount
	// OldestParkedAt is the last update of the longest-parked run; nil when
	// no run is parked.
	OldestParkedAt *time.Time
}

// Ops reads the operational counts: runs and proposals by status, steps by
// node and outcome (run_steps, bounded by step retention) and the oldest
// parked run.
func (s *Store) Ops(ctx context.Context) (OpsSnapshot, error) {
	var o OpsSnapshot
	var err error
	if o.RunsByStatus, err = s.countBy(ctx, `SELECT status, count(*) FROM runs GROUP BY status`); err != nil {
		return o, fmt.Errorf("ops: runs: %w", err)
	}
	if o.ProposalsByStatus, err = s.countBy(ctx, `SELECT status, count(*) FROM proposals GROUP BY status`); err != nil {
		return o, fmt.Errorf("ops: proposals: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT node, outcome, count(*) AS n FROM run_steps GROUP BY node, outcome`)
	if err != nil {
		return o, fmt.Errorf("ops: steps: %w", translate(err))
	}
	if o.Steps, err = pgx.CollectRows(rows, pgx.RowToStructByName[StepCount]); err != nil {
		return o, fmt.Errorf("ops: steps: %w", translate(err))
	}
	err = s.pool.QueryRow(ctx, `SELECT min(updated_at) FROM runs WHERE status = 'parked'`).Scan(&o.OldestParkedAt)
	if err != nil {
		return o, fmt.Errorf("ops: parked: %w", translate(err))
	}
	return o, nil
}

func (s *Store) countBy(ctx context.Context, q string) (map[string]int64, error) {
	rows, err := s.pool.Query(ctx, q)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var k string
		var n int64
		if err := rows.Scan(&k, &n); err != nil {
			return nil, translate(err)
		}
		out[k] = n
	}
	return out, translate(rows.Err())
}
