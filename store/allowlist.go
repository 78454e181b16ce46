package store

import (
	"context"
	"fmt"
)

// SetAllowedSenders replaces the sender allowlist of the agency of case
// caseID (agencies.allowed_senders: lowercase addresses "clerk@city.gov"
// and whole domains "@city.gov"; the caller normalizes). The agency is
// shared by all its cases. ErrNotFound for an unknown case.
func (t *Tx) SetAllowedSenders(ctx context.Context, caseID int64, senders []string) error {
	ct, err := t.exec(ctx, `UPDATE agencies SET allowed_senders = $2
		WHERE id = (SELECT agency_id FROM cases WHERE id = $1)`, caseID, orEmpty(senders))
	if err != nil {
		return fmt.Errorf("allowlist of case %d: %w", caseID, translate(err))
	}
	if ct.RowsAffected() == 0 {
		return fmt.Errorf("case %d: %w", caseID, ErrNotFound)
	}
	return nil
}

// AllowedSenders returns the allowlist of the agency of case caseID;
// ErrNotFound for an unknown case.
func (s *Store) AllowedSenders(ctx context.Context, caseID int64) ([]string, error) {
	var out []string
	err := s.pool.QueryRow(ctx, `SELECT a.allowed_senders FROM cases c JOIN agencies a ON a.id = c.agency_id
		WHERE c.id = $1`, caseID).Scan(&out)
	if err != nil {
		return nil, fmt.Errorf("allowlist of case %d: %w", caseID, translate(err))
	}
	return orEmpty(out), nil
}
