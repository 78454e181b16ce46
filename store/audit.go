package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Kinds of audit entries.
const (
	AuditDecision         = "decision"          // a reviewer's decision (decisions row)
	AuditEmailSent        = "email_sent"        // an email the sender handed over (email_sends row, SENT)
	AuditEscalationNotice = "escalation_notice" // an escalation the webhook accepted (escalations row)
)

// AuditEntry is one fact of the audit log: a decision, a sent email or a
// webhook notice. ID is the row's id in its own table (decisions,
// email_sends, escalations). Detail holds the kind's own fields:
//   - decision: instruction, reason, reject_reason (why the worker refused
//     it), promote_version, edited (whether text was replaced), applied_at;
//   - email_sent: execution_key, message_id, to, subject, auto_submitted;
//   - escalation_notice: reason, escalation_key.
type AuditEntry struct {
	At         time.Time       `db:"at" json:"at"` // decision: recorded; email: sent; notice: accepted by the webhook
	Kind       string          `db:"kind" json:"kind"`
	ID         int64           `db:"id" json:"id"`
	CaseID     int64           `db:"case_id" json:"case_id"`
	Actor      string          `db:"actor" json:"actor"`   // the reviewer's key name; "autopilot" for an email sent without a decision; "system"
	Action     string          `db:"action" json:"action"` // decision: APPROVE, EDIT, …; otherwise empty
	ProposalID *int64          `db:"proposal_id" json:"proposal_id"`
	Version    *int32          `db:"version" json:"version"` // decision: the proposal version decided
	Status     string          `db:"status" json:"status"`   // decision: accepted | applied | rejected; email: SENT; notice: the escalation's status
	Detail     json.RawMessage `db:"detail" json:"detail"`
}

// AuditCursor is the position after which a page of the audit log starts
// (the last entry of the previous page).
type AuditCursor struct {
	At   time.Time
	Kind string
	ID   int64
}

// AuditLog returns at most limit audit entries at or after since, newest
// first (by time, then kind and id), starting after before when it is set.
func (s *Store) AuditLog(ctx context.Context, since time.Time, before *AuditCursor, limit int) ([]AuditEntry, error) {
	var bAt *time.Time
	var bKind string
	var bID int64
	if before != nil {
		bAt, bKind, bID = &before.At, before.Kind, before.ID
	}
	rows, err := s.pool.Query(ctx, `SELECT at, kind, id, case_id, actor, action, proposal_id, version, status, detail FROM (
		SELECT d.created_at AS at, 'decision' AS kind, d.id, d.case_id::bigint AS case_id, d.actor, d.action,
			d.proposal_id, d.version, d.status,
			jsonb_strip_nulls(jsonb_build_object('instruction', NULLIF(d.instruction, ''), 'reason', NULLIF(d.reason, ''),
				'reject_reason', NULLIF(d.reject_reason, ''), 'promote_version', d.promote_version,
				'edited', d.edited_text <> '', 'applied_at', d.applied_at)) AS detail
		FROM decisions d WHERE d.created_at >= $1 AND ($2::timestamptz IS NULL OR d.created_at <= $2)
		UNION ALL
		SELECT e.sent_at, 'email_sent', e.id, e.case_id::bigint,
			CASE WHEN e.auto_submitted THEN 'autopilot' ELSE COALESCE((SELECT d.actor FROM decisions d
				WHERE d.proposal_id = e.proposal_id AND d.action IN ('APPROVE','EDIT') AND d.status <> 'rejected'
				ORDER BY d.id DESC LIMIT 1), 'system') END,
			'', e.proposal_id, NULL::integer, e.status,
			jsonb_build_object('execution_key', e.execution_key, 'message_id', e.message_id, 'to', e.to_addrs,
				'subject', e.subject, 'auto_submitted', e.auto_submitted)
		FROM email_sends e WHERE e.status = 'SENT' AND e.sent_at >= $1 AND ($2::timestamptz IS NULL OR e.sent_at <= $2)
		UNION ALL
		SELECT x.notified_at, 'escalation_notice', x.id, x.case_id::bigint, 'system', '', NULL::bigint, NULL::integer, x.status,
			jsonb_build_object('reason', x.reason, 'escalation_key', x.escalation_key)
		FROM escalations x WHERE x.notified_at IS NOT NULL AND x.notified_at >= $1 AND ($2::timestamptz IS NULL OR x.notified_at <= $2)
	) a
	WHERE $2::timestamptz IS NULL OR (a.at, a.kind, a.id) < ($2, $3, $4)
	ORDER BY a.at DESC, a.kind DESC, a.id DESC LIMIT $5`, since, bAt, bKind, bID, limit)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", translate(err))
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[AuditEntry])
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", translate(err))
	}
	return out, nil
}
