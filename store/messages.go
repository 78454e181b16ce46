package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/foiaflow/foiaflow/workflow"
)

// Message is a stored email (messages table). CaseID is nil for orphans.
type Message struct {
	ID          int64                 `json:"id"`
	CaseID      *int64                `json:"case_id"`
	Direction   string                `json:"direction"`
	MessageID   string                `json:"message_id"`
	InReplyTo   string                `json:"in_reply_to"`
	References  []string              `json:"references"`
	From        string                `json:"from"`
	To          []string              `json:"to"`
	Subject     string                `json:"subject"`
	Text        string                `json:"body_text"`
	HTML        string                `json:"body_html"`
	Headers     map[string]string     `json:"headers"`
	Attachments []workflow.Attachment `json:"attachments"`
	RawSize     int                   `json:"raw_size"`
	MatchMethod string                `json:"match_method"`
	ReceivedAt  time.Time             `json:"received_at"`
	// RawMessageID is the raw_messages row of the stored bytes (nil for
	// outbound mail and rows older than the message store).
	RawMessageID *int64 `json:"raw_message_id"`
	// ParseStatus is parsed, failed (kept, headers only) or oversize (over
	// MESSAGE_MAX_BYTES: kept, not MIME-parsed); ParseError says why.
	ParseStatus string `json:"parse_status"`
	ParseError  string `json:"parse_error,omitempty"`
	// OrphanReason says why an orphan matched no case.
	OrphanReason string `json:"orphan_reason,omitempty"`
	// SenderAllowed: From is the agency's address or on its allowlist. A
	// reply that proves its thread from any other sender is attached but
	// never acted on without a human.
	SenderAllowed bool `json:"sender_allowed"`
	// AutoKind is set for automatic mail (auto_submitted, bulk, auto_reply,
	// out_of_office, bounce): stored and shown, never answered.
	AutoKind string `json:"auto_kind,omitempty"`
}

// MessageIDHash is the deduplication key of a Message-ID: lowercase hex
// SHA-256 of the id as stored (with its angle brackets). Message-IDs are
// unbounded in practice (a 3,000-character one overflowed the old unique
// btree index); their hash is not.
func MessageIDHash(messageID string) string {
	sum := sha256.Sum256([]byte(messageID))
	return hex.EncodeToString(sum[:])
}

// InsertMessage stores a message unless its Message-ID is already stored.
// It returns the row id and created=false for a duplicate (webhooks redeliver).
func (t *Tx) InsertMessage(ctx context.Context, m Message) (int64, bool, error) {
	headers, _ := json.Marshal(m.Headers)
	atts, _ := json.Marshal(m.Attachments)
	if m.Attachments == nil {
		atts = []byte("[]")
	}
	if m.ReceivedAt.IsZero() {
		m.ReceivedAt = time.Now().UTC()
	}
	if m.ParseStatus == "" {
		m.ParseStatus = ParseStatusParsed
	}
	hash := MessageIDHash(m.MessageID)
	var id int64
	err := t.queryRow(ctx, `
		INSERT INTO messages (case_id, direction, message_id, message_id_hash, in_reply_to, "references", from_addr, to_addrs,
		                      subject, body_text, body_html, headers, attachments, raw_size, match_method, received_at,
		                      raw_message_id, parse_status, parse_error, orphan_reason, sender_allowed, auto_kind)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22)
		ON CONFLICT (message_id_hash) DO NOTHING RETURNING id`,
		m.CaseID, m.Direction, m.MessageID, hash, m.InReplyTo, orEmpty(m.References), m.From, orEmpty(m.To), m.Subject,
		m.Text, m.HTML, headers, atts, m.RawSize, m.MatchMethod, m.ReceivedAt,
		m.RawMessageID, m.ParseStatus, m.ParseError, m.OrphanReason, m.SenderAllowed, m.AutoKind).Scan(&id)
	if err == nil {
		return id, true, nil
	}
	if err = translate(err); !isNotFound(err) {
		return 0, false, fmt.Errorf("insert message %.200s: %w", m.MessageID, err)
	}
	err = t.queryRow(ctx, `SELECT id FROM messages WHERE message_id_hash = $1`, hash).Scan(&id)
	return id, false, translate(err)
}

// Parse statuses (messages.parse_status).
const (
	ParseStatusParsed   = "parsed"
	ParseStatusFailed   = "failed"
	ParseStatusOversize = "oversize"
)

const messageCols = `id, case_id, direction, message_id, in_reply_to, "references", from_addr, to_addrs, subject,
	body_text, body_html, headers, attachments, raw_size, match_method, received_at,
	raw_message_id, parse_status, parse_error, orphan_reason, sender_allowed, auto_kind`

type rowScanner interface{ Scan(...any) error }

func scanMessage(r rowScanner) (Message, error) {
	var m Message
	var caseID *int32
	var headers, atts []byte
	err := r.Scan(&m.ID, &caseID, &m.Direction, &m.MessageID, &m.InReplyTo, &m.References, &m.From, &m.To,
		&m.Subject, &m.Text, &m.HTML, &headers, &atts, &m.RawSize, &m.MatchMethod, &m.ReceivedAt,
		&m.RawMessageID, &m.ParseStatus, &m.ParseError, &m.OrphanReason, &m.SenderAllowed, &m.AutoKind)
	if err != nil {
		return m, err
	}
	if caseID != nil {
		c := int64(*caseID)
		m.CaseID = &c
	}
	_ = json.Unmarshal(headers, &m.Headers)
	_ = json.Unmarshal(atts, &m.Attachments)
	return m, nil
}

// GetMessage loads a message by row id; ErrNotFound.
func (s *Store) GetMessage(ctx context.Context, id int64) (Message, error) {
	m, err := scanMessage(s.pool.QueryRow(ctx, `SELECT `+messageCols+` FROM messages WHERE id = $1`, id))
	if err != nil {
		return m, fmt.Errorf("message %d: %w", id, translate(err))
	}
	return m, nil
}

// LoadMessage returns the analyzer's view of a message (workflow.CaseReader).
func (s *Store) LoadMessage(ctx context.Context, id int64) (workflow.Reply, error) {
	m, err := s.GetMessage(ctx, id)
	if err != nil {
		return workflow.Reply{}, err
	}
	return workflow.Reply{MessageID: m.MessageID, From: m.From, Subject: m.Subject, Text: m.Text, HTML: m.HTML,
		Attachments: m.Attachments, ReceivedAt: m.ReceivedAt, SenderUnverified: !m.SenderAllowed}, nil
}

// MessagesOfCase lists a case's messages oldest first.
func (s *Store) MessagesOfCase(ctx context.Context, caseID int64) ([]Message, error) {
	return s.queryMessages(ctx, `SELECT `+messageCols+` FROM messages WHERE case_id = $1 ORDER BY received_at, id`, caseID)
}

// Orphans lists inbound messages that matched no case, oldest first.
func (s *Store) Orphans(ctx context.Context, limit int) ([]Message, error) {
	return s.queryMessages(ctx, `SELECT `+messageCols+` FROM messages WHERE case_id IS NULL ORDER BY id LIMIT $1`, limit)
}

func (s *Store) queryMessages(ctx context.Context, q string, args ...any) ([]Message, error) {
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return nil, translate(err)
		}
		out = append(out, m)
	}
	return out, translate(rows.Err())
}

// AssignOrphan attaches an orphan message and its attachments to a case;
// sender_allowed is recomputed against that case's agency (a reviewer's
// assignment says where the message belongs, not that its sender may steer
// the case). It returns the message as assigned; ErrNotFound when the
// message is not an orphan (already assigned or unknown).
func (t *Tx) AssignOrphan(ctx context.Context, messageID, caseID int64) (Message, error) {
	m, err := scanMessage(t.queryRow(ctx, `UPDATE messages m SET case_id = $2, match_method = 'manual', orphan_reason = '',
		    sender_allowed = COALESCE((SELECT `+senderAllowedSQL("$2", "m.from_addr")+`), false)
		WHERE m.id = $1 AND m.case_id IS NULL AND m.direction = 'inbound' RETURNING `+messageCols, messageID, caseID))
	if err != nil {
		return m, fmt.Errorf("orphan %d: %w", messageID, translate(err))
	}
	if _, err := t.exec(ctx, `UPDATE attachments SET case_id = $2 WHERE message_id = $1`, messageID, caseID); err != nil {
		return m, fmt.Errorf("assign attachments of %d: %w", messageID, translate(err))
	}
	return m, nil
}

// senderAllowedSQL is the one definition of the sender allowlist (issue 10,
// "Matching you can trust"): a sender may steer a case when its address,
// lowercased, is the agency's email, is listed in agencies.allowed_senders,
// or its domain is listed there as "@domain". caseExpr and addrExpr are SQL
// expressions (parameters or columns).
func senderAllowedSQL(caseExpr, addrExpr string) string {
	return senderAllowedExpr(addrExpr) + `
		FROM cases c JOIN agencies a ON a.id = c.agency_id WHERE c.id = ` + caseExpr
}

// senderAllowedExpr is the allowlist test of senderAllowedSQL over the
// agency row a.
func senderAllowedExpr(addrExpr string) string {
	return `(lower(` + addrExpr + `) = a.email OR lower(` + addrExpr + `) = ANY(a.allowed_senders)
		OR ('@' || split_part(lower(` + addrExpr + `), '@', 2)) = ANY(a.allowed_senders))`
}

// SenderAllowed reports whether addr may steer case caseID (see
// senderAllowedSQL); ErrNotFound for an unknown case.
func (s *Store) SenderAllowed(ctx context.Context, caseID int64, addr string) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT `+senderAllowedSQL("$1", "$2::text"), caseID, addr).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("sender allowlist of case %d: %w", caseID, translate(err))
	}
	return ok, nil
}

// SaveAnalysis stores the analysis of a message in a run (idempotent per run
// and message; queued, see Tx).
func (t *Tx) SaveAnalysis(ctx context.Context, caseID, messageID, runID int64, a workflow.Analysis) error {
	full, err := json.Marshal(a)
	if err != nil {
		return err
	}
	t.later(fmt.Sprintf("save analysis of message %d", messageID), `
		INSERT INTO response_analyses (case_id, message_id, run_id, class, confidence, sentiment, fee_cents, deadline,
		                               tracking_number, analyzer, full_analysis, fee_currency)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8::date,$9,$10,$11,$12)
		ON CONFLICT (run_id, message_id) DO UPDATE SET full_analysis = excluded.full_analysis`,
		caseID, messageID, runID, a.Class, a.Confidence, a.Sentiment, a.FeeCents, a.Deadline, a.TrackingNumber, a.Analyzer, full,
		workflow.CurrencyOrUSD(a.FeeCurrency))
	return nil
}

// AnalysesOfCase returns the stored analyses of a case, oldest first, each
// with its message_row_id and, for an admin's re-analysis, reanalysis_id.
func (s *Store) AnalysesOfCase(ctx context.Context, caseID int64) ([]json.RawMessage, error) {
	rows, err := s.pool.Query(ctx, `SELECT full_analysis || jsonb_build_object('message_row_id', message_id,
		    'reanalysis_id', reanalysis_id)
		FROM response_analyses WHERE case_id = $1 ORDER BY id`, caseID)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	var out []json.RawMessage
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return nil, translate(err)
		}
		out = append(out, b)
	}
	return out, translate(rows.Err())
}

func isNotFound(err error) bool { return err != nil && errors.Is(err, ErrNotFound) }
