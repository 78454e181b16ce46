package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/foiaflow/foiaflow/workflow"
)

// UpsertProposal inserts the proposal keyed by p.Key with version 1, or, when
// the key exists, adds version p.Version if it is newer than the current one
// and refreshes status, flags and reasoning. The version rows are kept
// forever (seed 004). Runs inside the step transaction, which is fenced, so a
// retried step cannot add a version twice.
func (t *Tx) UpsertProposal(ctx context.Context, p workflow.ProposalUpsert) (workflow.ProposalRecord, error) {
	reasoning, _ := json.Marshal(orEmpty(p.Reasoning))
	var id int64
	var cur int
	err := t.queryRow(ctx, `SELECT id, current_version FROM proposals WHERE proposal_key = $1 FOR UPDATE`, p.Key).Scan(&id, &cur)
	switch {
	case err == pgx.ErrNoRows:
		err = t.queryRow(ctx, `
			INSERT INTO proposals (case_id, run_id, proposal_key, action_type, trigger_message_id, current_version, status,
			    reasoning, confidence, risk_flags, warnings, pause_reason, can_auto_execute, requires_human, human_task,
			    fee_cents, fee_currency, adjustment_count, approved_by, approved_at)
			VALUES ($1,$2,$3,$4,$5,1,$6,$7,$8,$9,$10,$11,$12,NOT $12,$13,$14,$16,$15,
			        CASE WHEN $6 = 'APPROVED' THEN 'agent' ELSE '' END, CASE WHEN $6 = 'APPROVED' THEN now() END)
			RETURNING id`,
			p.CaseID, p.RunID, p.Key, p.Action, p.TriggerMessageID, p.Status, reasoning, p.Confidence,
			orEmpty(p.RiskFlags), orEmpty(p.Warnings), p.PauseReason, p.CanAutoExecute, p.HumanTask, p.FeeCents,
			p.AdjustmentCount, workflow.CurrencyOrUSD(p.FeeCurrency)).Scan(&id)
		if err != nil {
			return workflow.ProposalRecord{}, fmt.Errorf("insert proposal %s: %w", p.Key, translate(err))
		}
		p.Version = 1
	case err != nil:
		return workflow.ProposalRecord{}, fmt.Errorf("lock proposal %s: %w", p.Key, translate(err))
	default:
		if p.Version <= cur {
			p.Version = cur
			break
		}
		t.later("update proposal "+p.Key, `
			UPDATE proposals SET current_version = $2, status = $3, adjustment_count = $4, updated_at = now(),
			    risk_flags = CASE WHEN $5 THEN $6 ELSE risk_flags END,
			    warnings = CASE WHEN $5 THEN $7 ELSE warnings END
			WHERE id = $1`, id, p.Version, p.Status, p.AdjustmentCount, p.VersionSource != workflow.SourceHumanEdited,
			orEmpty(p.RiskFlags), orEmpty(p.Warnings))
	}
	source := p.VersionSource
	if source == "" {
		source = workflow.SourceAIGenerated
	}
	t.later(fmt.Sprintf("insert version %d of proposal %s", p.Version, p.Key), `
		INSERT INTO proposal_versions (proposal_id, version, source, subject, body_text, body_html, feedback, author, promoted_from)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9) ON CONFLICT (proposal_id, version) DO NOTHING`,
		id, p.Version, source, p.Subject, p.BodyText, p.BodyHTML, p.Feedback, p.Author, nilIfZero(int64(p.PromotedFrom)))
	return workflow.ProposalRecord{ID: id, CaseID: p.CaseID, RunID: p.RunID, Key: p.Key, Action: p.Action,
		Status: p.Status, CurrentVersion: p.Version, AdjustmentCount: p.AdjustmentCount, HumanTask: p.HumanTask,
		FeeCents: p.FeeCents, FeeCurrency: workflow.CurrencyOrUSD(p.FeeCurrency), Subject: p.Subject, BodyText: p.BodyText, BodyHTML: p.BodyHTML}, nil
}

// SetProposalStatus moves a proposal to status (approvedBy recorded for
// APPROVED).
func (t *Tx) SetProposalStatus(ctx context.Context, id int64, status, approvedBy string) error {
	_, err := t.exec(ctx, `UPDATE proposals SET status = $2, updated_at = now(),
		approved_by = CASE WHEN $2 = 'APPROVED' THEN $3 ELSE approved_by END,
		approved_at = CASE WHEN $2 = 'APPROVED' THEN now() ELSE approved_at END
		WHERE id = $1`, id, status, approvedBy)
	if err != nil {
		return fmt.Errorf("set status of proposal %d: %w", id, translate(err))
	}
	return nil
}

// ClaimExecution marks an APPROVED proposal EXECUTED under executionKey; it
// returns false when the proposal is not APPROVED any more (already executed,
// dismissed, superseded): nothing changes then (I5).
func (t *Tx) ClaimExecution(ctx context.Context, id int64, executionKey string) (bool, error) {
	ct, err := t.exec(ctx, `UPDATE proposals SET status = 'EXECUTED', execution_key = $2, executed_at = now(), updated_at = now()
		WHERE id = $1 AND status = 'APPROVED' AND execution_key IS NULL`, id, executionKey)
	if err != nil {
		return false, fmt.Errorf("claim execution of proposal %d: %w", id, translate(err))
	}
	return ct.RowsAffected() == 1, nil
}

// Proposal is a stored proposal with its versions, for the API.
type Proposal struct {
	ID              int64             `json:"id"`
	CaseID          int64             `json:"case_id"`
	RunID           int64             `json:"run_id"`
	Key             string            `json:"proposal_key"`
	Action          string            `json:"action_type"`
	Status          string            `json:"status"`
	CurrentVersion  int               `json:"current_version"`
	Reasoning       json.RawMessage   `json:"reasoning"`
	Confidence      float64           `json:"confidence"`
	RiskFlags       []string          `json:"risk_flags"`
	Warnings        []string          `json:"warnings"`
	PauseReason     string            `json:"pause_reason"`
	CanAutoExecute  bool              `json:"can_auto_execute"`
	HumanTask       bool              `json:"human_task"`
	FeeCents        *int64            `json:"fee_cents"`
	FeeCurrency     string            `json:"fee_currency"` // ISO 4217 of FeeCents
	ExecutionKey    *string           `json:"execution_key"`
	AdjustmentCount int               `json:"adjustment_count"`
	ApprovedBy      string            `json:"approved_by"`
	CreatedAt       time.Time         `json:"created_at"`
	UpdatedAt       time.Time         `json:"updated_at"`
	Versions        []ProposalVersion `json:"versions,omitempty"`
}

// ProposalVersion is one version of a proposal's draft.
type ProposalVersion struct {
	Version  int    `db:"version" json:"version"`
	Source   string `db:"source" json:"source"`
	Subject  string `db:"subject" json:"subject"`
	BodyText string `db:"body_text" json:"body_text"`
	BodyHTML string `db:"body_html" json:"body_html"`
	Feedback string `db:"feedback" json:"feedback,omitempty"`
	Author   string `db:"author" json:"author"`
	// PromotedFrom is the earlier version this one copies (source promoted).
	PromotedFrom *int64    `db:"promoted_from" json:"promoted_from,omitempty"`
	CreatedAt    time.Time `db:"created_at" json:"created_at"`
}

const proposalCols = `id, case_id, run_id, proposal_key, action_type, status, current_version, reasoning, confidence,
	risk_flags, warnings, pause_reason, can_auto_execute, human_task, fee_cents, fee_currency, execution_key, adjustment_count,
	approved_by, created_at, updated_at`

func scanProposal(r rowScanner) (Proposal, error) {
	var p Proposal
	var conf float32
	var caseID int32
	err := r.Scan(&p.ID, &caseID, &p.RunID, &p.Key, &p.Action, &p.Status, &p.CurrentVersion, &p.Reasoning, &conf,
		&p.RiskFlags, &p.Warnings, &p.PauseReason, &p.CanAutoExecute, &p.HumanTask, &p.FeeCents, &p.FeeCurrency, &p.ExecutionKey,
		&p.AdjustmentCount, &p.ApprovedBy, &p.CreatedAt, &p.UpdatedAt)
	p.Confidence, p.CaseID = float64(conf), int64(caseID)
	return p, err
}

// GetProposal loads a proposal with all its versions; ErrNotFound.
func (s *Store) GetProposal(ctx context.Context, id int64) (Proposal, error) {
	p, err := scanProposal(s.pool.QueryRow(ctx, `SELECT `+proposalCols+` FROM proposals WHERE id = $1`, id))
	if err != nil {
		return p, fmt.Errorf("proposal %d: %w", id, translate(err))
	}
	rows, err := s.pool.Query(ctx, `SELECT version, source, subject, body_text, body_html, feedback, author, promoted_from, created_at
		FROM proposal_versions WHERE proposal_id = $1 ORDER BY version`, id)
	if err != nil {
		return p, translate(err)
	}
	p.Versions, err = pgx.CollectRows(rows, pgx.RowToStructByName[ProposalVersion])
	return p, translate(err)
}

// LoadProposal returns the graph's view of a proposal with its current
// version's text (workflow.CaseReader).
func (s *Store) LoadProposal(ctx context.Context, id int64) (workflow.ProposalRecord, error) {
	var r workflow.ProposalRecord
	var caseID int32
	var execKey *string
	err := s.pool.QueryRow(ctx, `
		SELECT p.id, p.case_id, p.run_id, p.proposal_key, p.action_type, p.status, p.current_version, p.adjustment_count,
		       p.execution_key, p.human_task, p.fee_cents, p.fee_currency, v.subject, v.body_text, v.body_html
		FROM proposals p JOIN proposal_versions v ON v.proposal_id = p.id AND v.version = p.current_version
		WHERE p.id = $1`, id).Scan(&r.ID, &caseID, &r.RunID, &r.Key, &r.Action, &r.Status, &r.CurrentVersion,
		&r.AdjustmentCount, &execKey, &r.HumanTask, &r.FeeCents, &r.FeeCurrency, &r.Subject, &r.BodyText, &r.BodyHTML)
	if err != nil {
		return r, fmt.Errorf("proposal %d: %w", id, translate(err))
	}
	r.CaseID = int64(caseID)
	if execKey != nil {
		r.ExecutionKey = *execKey
	}
	return r, nil
}
