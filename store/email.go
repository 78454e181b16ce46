package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/foiaflow/foiaflow/workflow"
)

// EmailSend statuses.
const (
	EmailQueued  = "QUEUED"
	EmailSending = "SENDING"
	EmailSent    = "SENT"
	EmailFailed  = "FAILED"
)

// InsertEmailSend claims the execution key with a QUEUED email_sends row; a
// second insert with the same key does nothing and returns false (I5).
func (t *Tx) InsertEmailSend(ctx context.Context, e workflow.EmailSend) (bool, error) {
	ct, err := t.tx.Exec(ctx, `
		INSERT INTO email_sends (execution_key, proposal_id, case_id, message_id, from_addr, to_addrs, reply_to,
		                         subject, body_text, body_html, in_reply_to, "references", send_after)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)
		ON CONFLICT (execution_key) DO NOTHING`,
		e.ExecutionKey, e.ProposalID, e.CaseID, e.MessageID, e.From, orEmpty(e.To), e.ReplyTo, e.Subject, e.Text,
		e.HTML, e.InReplyTo, orEmpty(e.References), e.SendAfter)
	if err != nil {
		return false, fmt.Errorf("insert email send %s: %w", e.ExecutionKey, translate(err))
	}
	return ct.RowsAffected() == 1, nil
}

// EmailSendRow is a stored email send.
type EmailSendRow struct {
	ID           int64      `db:"id" json:"id"`
	ExecutionKey string     `db:"execution_key" json:"execution_key"`
	ProposalID   int64      `db:"proposal_id" json:"proposal_id"`
	CaseID       int64      `db:"case_id" json:"case_id"`
	MessageID    string     `db:"message_id" json:"message_id"`
	From         string     `db:"from_addr" json:"from"`
	To           []string   `db:"to_addrs" json:"to"`
	ReplyTo      string     `db:"reply_to" json:"reply_to"`
	Subject      string     `db:"subject" json:"subject"`
	Text         string     `db:"body_text" json:"body_text"`
	HTML         string     `db:"body_html" json:"body_html"`
	InReplyTo    string     `db:"in_reply_to" json:"in_reply_to"`
	References   []string   `db:"references" json:"references"`
	Status       string     `db:"status" json:"status"`
	Attempts     int        `db:"attempts" json:"attempts"`
	SendAfter    time.Time  `db:"send_after" json:"send_after"`
	LastError    string     `db:"last_error" json:"last_error,omitempty"`
	SentAt       *time.Time `db:"sent_at" json:"sent_at"`
	CreatedAt    time.Time  `db:"created_at" json:"created_at"`
	// DispatchGen counts reaper re-dispatches of the send task (I6).
	DispatchGen int `db:"dispatch_gen" json:"-"`
}

const emailCols = `id, execution_key, proposal_id, case_id, message_id, from_addr, to_addrs, reply_to, subject, body_text,
	body_html, in_reply_to, "references", status, attempts, send_after, last_error, sent_at, created_at, dispatch_gen`

// GetEmailSend loads the send of an execution key; ErrNotFound.
func (s *Store) GetEmailSend(ctx context.Context, executionKey string) (EmailSendRow, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+emailCols+` FROM email_sends WHERE execution_key = $1`, executionKey)
	if err != nil {
		return EmailSendRow{}, translate(err)
	}
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[EmailSendRow])
	if err != nil {
		return r, fmt.Errorf("email send %s: %w", executionKey, translate(err))
	}
	return r, nil
}

// EmailSendsOfCase lists a case's sends, oldest first.
func (s *Store) EmailSendsOfCase(ctx context.Context, caseID int64) ([]EmailSendRow, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+emailCols+` FROM email_sends WHERE case_id = $1 ORDER BY id`, caseID)
	if err != nil {
		return nil, translate(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[EmailSendRow])
	return out, translate(err)
}

// BeginSend moves a QUEUED (or a SENDING left by a crashed attempt) send to
// SENDING and counts the attempt. It returns false when the send is already
// SENT or FAILED: nothing is to be sent (I5).
func (s *Store) BeginSend(ctx context.Context, executionKey string) (EmailSendRow, bool, error) {
	rows, err := s.pool.Query(ctx, `UPDATE email_sends SET status = 'SENDING', attempts = attempts + 1
		WHERE execution_key = $1 AND status IN ('QUEUED','SENDING') RETURNING `+emailCols, executionKey)
	if err != nil {
		return EmailSendRow{}, false, translate(err)
	}
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[EmailSendRow])
	if err == pgx.ErrNoRows {
		_, gerr := s.GetEmailSend(ctx, executionKey)
		return EmailSendRow{}, false, gerr
	}
	return r, err == nil, translate(err)
}

// MarkSent records the transport's acceptance. Together with its outbound
// messages row, so the thread has our Message-ID for reply matching.
func (s *Store) MarkSent(ctx context.Context, executionKey string, at time.Time) error {
	_, err := s.InTx(ctx, func(tx *Tx) error {
		var e EmailSendRow
		rows, err := tx.tx.Query(ctx, `UPDATE email_sends SET status = 'SENT', sent_at = $2, last_error = ''
			WHERE execution_key = $1 AND status = 'SENDING' RETURNING `+emailCols, executionKey, at)
		if err != nil {
			return translate(err)
		}
		e, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[EmailSendRow])
		if err == pgx.ErrNoRows {
			return nil
		}
		if err != nil {
			return translate(err)
		}
		cid := e.CaseID
		_, _, err = tx.InsertMessage(ctx, Message{CaseID: &cid, Direction: "outbound", MessageID: e.MessageID,
			InReplyTo: e.InReplyTo, References: e.References, From: e.From, To: e.To, Subject: e.Subject,
			Text: e.Text, HTML: e.HTML, ReceivedAt: at, MatchMethod: "sent", SenderAllowed: true})
		return err
	})
	return err
}

// MarkSendError records a failed attempt; final marks it FAILED.
func (s *Store) MarkSendError(ctx context.Context, executionKey, reason string, final bool) error {
	status := EmailQueued
	if final {
		status = EmailFailed
	}
	_, err := s.pool.Exec(ctx, `UPDATE email_sends SET status = $2, last_error = $3 WHERE execution_key = $1 AND status <> 'SENT'`,
		executionKey, status, reason)
	return translate(err)
}

// BumpSendGen increments the re-dispatch generation of a send still QUEUED
// or SENDING and returns it; false when it is SENT or FAILED.
func (s *Store) BumpSendGen(ctx context.Context, executionKey string) (int, bool, error) {
	var gen int
	err := s.pool.QueryRow(ctx, `UPDATE email_sends SET dispatch_gen = dispatch_gen + 1
		WHERE execution_key = $1 AND status IN ('QUEUED','SENDING') RETURNING dispatch_gen`, executionKey).Scan(&gen)
	if err == pgx.ErrNoRows {
		return 0, false, nil
	}
	return gen, err == nil, translate(err)
}
