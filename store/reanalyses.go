package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/foiaflow/foiaflow/workflow"
)

// Reanalysis is an admin's request to parse and analyse a stored message
// again (reanalyses): it yields a new response_analyses row linked to it,
// no run, nothing sent (issue 11).
type Reanalysis struct {
	ID          int64           `db:"id" json:"id"`
	MessageID   int64           `db:"message_id" json:"message_id"`
	RequestedBy string          `db:"requested_by" json:"requested_by"`
	Status      string          `db:"status" json:"status"` // queued | done | failed
	Error       string          `db:"error" json:"error,omitempty"`
	AnalysisID  *int64          `db:"analysis_id" json:"analysis_id"`
	CreatedAt   time.Time       `db:"created_at" json:"created_at"`
	FinishedAt  *time.Time      `db:"finished_at" json:"finished_at"`
	Analysis    json.RawMessage `db:"analysis" json:"analysis"` // workflow.Analysis once done, else null
}

// InsertReanalysis records a queued re-analysis of message messageID.
func (t *Tx) InsertReanalysis(ctx context.Context, messageID int64, requestedBy string) (int64, error) {
	var id int64
	err := t.queryRow(ctx, `INSERT INTO reanalyses (message_id, requested_by) VALUES ($1, $2) RETURNING id`,
		messageID, requestedBy).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("queue reanalysis of message %d: %w", messageID, translate(err))
	}
	return id, nil
}

// GetReanalysis loads a re-analysis with its analysis; ErrNotFound.
func (s *Store) GetReanalysis(ctx context.Context, id int64) (Reanalysis, error) {
	rows, err := s.pool.Query(ctx, `SELECT r.id, r.message_id, r.requested_by, r.status, r.error, r.analysis_id,
		    r.created_at, r.finished_at, COALESCE(a.full_analysis, 'null'::jsonb) AS analysis
		FROM reanalyses r LEFT JOIN response_analyses a ON a.id = r.analysis_id WHERE r.id = $1`, id)
	if err != nil {
		return Reanalysis{}, translate(err)
	}
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Reanalysis])
	if err != nil {
		return r, fmt.Errorf("reanalysis %d: %w", id, translate(err))
	}
	return r, nil
}

// Reparsed is what a new parse of a stored message replaces.
type Reparsed struct {
	Subject, Text, HTML string
	Headers             map[string]string
	Attachments         []workflow.Attachment
	ParseStatus         string
	ParseError          string
}

// FinishReanalysis stores the outcome of a queued re-analysis in one
// transaction: the message's parsed view is replaced by the new parse
// (its raw bytes, case and match stay), new attachment rows are added,
// and the analysis becomes a response_analyses row without a run. It
// returns false when the re-analysis was already finished (a duplicate
// task).
func (t *Tx) FinishReanalysis(ctx context.Context, id, caseID, messageID int64, p Reparsed, atts []Attachment, a workflow.Analysis) (bool, error) {
	ct, err := t.exec(ctx, `UPDATE reanalyses SET status = 'done', finished_at = now() WHERE id = $1 AND status = 'queued'`, id)
	if err != nil || ct.RowsAffected() == 0 {
		return false, translate(err)
	}
	headers, _ := json.Marshal(p.Headers)
	metas, _ := json.Marshal(orEmptyAttachments(p.Attachments))
	_, err = t.exec(ctx, `UPDATE messages SET subject = $2, body_text = $3, body_html = $4, headers = $5, attachments = $6,
		    parse_status = $7, parse_error = $8 WHERE id = $1`, messageID, p.Subject, p.Text, p.HTML, headers, metas,
		p.ParseStatus, p.ParseError)
	if err != nil {
		return false, fmt.Errorf("reparse message %d: %w", messageID, translate(err))
	}
	cp := &caseID
	if err := t.InsertAttachments(ctx, messageID, cp, atts); err != nil {
		return false, err
	}
	full, err := json.Marshal(a)
	if err != nil {
		return false, err
	}
	var aid int64
	err = t.queryRow(ctx, `
		INSERT INTO response_analyses (case_id, message_id, run_id, reanalysis_id, class, confidence, sentiment, fee_cents,
		                               deadline, tracking_number, analyzer, full_analysis, fee_currency)
		VALUES ($1,$2,NULL,$3,$4,$5,$6,$7,$8::date,$9,$10,$11,$12) RETURNING id`,
		caseID, messageID, id, a.Class, a.Confidence, a.Sentiment, a.FeeCents, a.Deadline, a.TrackingNumber, a.Analyzer, full,
		workflow.CurrencyOrUSD(a.FeeCurrency)).Scan(&aid)
	if err != nil {
		return false, fmt.Errorf("save reanalysis %d: %w", id, translate(err))
	}
	_, err = t.exec(ctx, `UPDATE reanalyses SET analysis_id = $2 WHERE id = $1`, id, aid)
	return err == nil, translate(err)
}

// FailReanalysis records why a re-analysis could not be done.
func (s *Store) FailReanalysis(ctx context.Context, id int64, reason string) error {
	_, err := s.pool.Exec(ctx, `UPDATE reanalyses SET status = 'failed', error = $2, finished_at = now()
		WHERE id = $1 AND status = 'queued'`, id, reason)
	return translate(err)
}

func orEmptyAttachments(a []workflow.Attachment) []workflow.Attachment {
	if a == nil {
		return []workflow.Attachment{}
	}
	return a
}
