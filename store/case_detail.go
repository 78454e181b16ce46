package store

import (
	"context"
	"fmt"
	"strings"
)

// The case detail page's reads (GET /v1/cases/{id}) besides the case and
// its proposals, messages and timeline, and the checks of a case's writes.

// JurisdictionExists reports whether code (case-insensitive, e.g. "TX") is
// a row of the jurisdictions table.
func (s *Store) JurisdictionExists(ctx context.Context, code string) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM jurisdictions WHERE code = $1)`,
		strings.ToUpper(code)).Scan(&ok)
	return ok, translate(err)
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

// UpdateCaseSettings changes the reviewer-controlled settings of a case:
// autopilot mode and paused (nil leaves a value unchanged). ErrNotFound for
// an unknown case, ErrConflict for an invalid mode.
func (t *Tx) UpdateCaseSettings(ctx context.Context, caseID int64, mode *string, paused *bool) error {
	ct, err := t.exec(ctx, `UPDATE cases SET autopilot_mode = COALESCE($2, autopilot_mode),
		paused = COALESCE($3, paused), updated_at = now() WHERE id = $1`, caseID, mode, paused)
	if err != nil {
		return fmt.Errorf("update settings of case %d: %w", caseID, translate(err))
	}
	if ct.RowsAffected() == 0 {
		return fmt.Errorf("case %d: %w", caseID, ErrNotFound)
	}
	return nil
}
