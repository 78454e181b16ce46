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
// second insert with the same key does nothing and returns false (I5). An
// email of a replay's proposal (runs.replay_of) that no APPROVE or EDIT
// decision decided is refused with ErrReplayNeedsHuman and nothing is
// written: the last guard of time travel, in the same round trip.
func (t *Tx) InsertEmailSend(ctx context.Context, e workflow.EmailSend) (bool, error) {
	var refused bool
	var inserted int
	err := t.queryRow(ctx, `
		WITH guard AS (
		    SELECT EXISTS (SELECT 1 FROM proposals p JOIN runs r ON r.id = p.run_id
		        WHERE p.id = $2 AND r.replay_of IS NOT NULL
		          AND NOT EXISTS (SELECT 1 FROM decisions d WHERE d.proposal_id = p.id
		                          AND d.action IN ('APPROVE','EDIT') AND d.status <> 'rejected')) AS refused),
		ins AS (
		    INSERT INTO email_sends (execution_key, proposal_id, case_id, message_id, from_addr, to_addrs, reply_to,
		                             subject, body_text, body_html, in_reply_to, "references", send_after, auto_submitted)
		    SELECT $1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14 FROM guard WHERE NOT refused
		    ON CONFLICT (execution_key) DO NOTHING
		    RETURNING 1)
		SELECT (SELECT refused FROM guard), (SELECT count(*) FROM ins)::int`,
		e.ExecutionKey, e.ProposalID, e.CaseID, e.MessageID, e.From, orEmpty(e.To), e.ReplyTo, e.Subject, e.Text,
		e.HTML, e.InReplyTo, orEmpty(e.References), e.SendAfter, e.Automatic).Scan(&refused, &inserted)
	if err != nil {
		return false, fmt.Errorf("insert email send %s: %w", e.ExecutionKey, translate(err))
	}
	if refused {
		return false, fmt.Errorf("insert email send %s of proposal %d: %w", e.ExecutionKey, e.ProposalID, ErrReplayNeedsHuman)
	}
	return inserted == 1, nil
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
	// AutoSubmitted: no human decided this send (Auto-Submitted:
	// auto-generated, RFC 3834).
	AutoSubmitted bool `db:"auto_submitted" json:"auto_submitted"`
}

const emailCols = `id, execution_key, proposal_id, case_id, message_id, from_addr, to_addrs, reply_to, subject, body_text,
	body_html, in_reply_to, "references", status, attempts, send_after, last_error, sent_at, created_at, dispatch_gen,
	auto_submitted`

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

// RecentAutoSends counts the case's automatic sends (auto_submitted)
// created in the last window, by the database clock; a send that later
// failed still counts (workflow.CaseReader).
func (s *Store) RecentAutoSends(ctx context.Context, caseID int64, window time.Duration) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM email_sends WHERE case_id = $1 AND auto_submitted
		AND created_at > now() - make_interval(secs => $2)`, caseID, window.Seconds()).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("recent automatic sends of case %d: %w", caseID, translate(err))
	}
	return n, nil
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
		rows, err := tx.query(ctx, `UPDATE email_sends SET status = 'SENT', sent_at = $2, last_error = ''
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

// FailSend gives up on a send that failed for good (a permanent SMTP
// rejection, a message that cannot be rendered, retries exhausted): in one
// transaction the row becomes FAILED with reason, an escalation
// "send-failed:<execution key>" opens with the reason and the activity log
// says why, so a human takes the case over instead of it waiting on an
// email that never left. The case becomes escalated (unless closed) here
// when its run has finished, else by the run's own commit_state
// (EmailFailed): the transaction holds the case's advisory lock, so the
// two cannot interleave. A send already SENT or FAILED is left alone
// (false).
func (s *Store) FailSend(ctx context.Context, caseID int64, executionKey, reason string) (bool, error) {
	failed := false
	_, err := s.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.exec(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, s.lockNS, int32(caseID)); err != nil {
			return fmt.Errorf("lock case %d: %w", caseID, translate(err))
		}
		var proposalID, runID int64
		var runStatus, caseStatus string
		var to []string
		err := tx.queryRow(ctx, `UPDATE email_sends e SET status = 'FAILED', last_error = $3
			FROM proposals p JOIN runs r ON r.id = p.run_id JOIN cases c ON c.id = p.case_id
			WHERE e.execution_key = $2 AND e.case_id = $1 AND e.status IN ('QUEUED','SENDING') AND p.id = e.proposal_id
			RETURNING e.proposal_id, p.run_id, r.status, c.status, e.to_addrs`, caseID, executionKey, reason).
			Scan(&proposalID, &runID, &runStatus, &caseStatus, &to)
		if err == pgx.ErrNoRows {
			return nil
		}
		if err != nil {
			return fmt.Errorf("fail send %s: %w", executionKey, translate(err))
		}
		failed = true
		why := fmt.Sprintf("email of proposal %d to %v was not sent and will not be retried: %s", proposalID, to, reason)
		if err := tx.OpenEscalation(ctx, "send-failed:"+executionKey, caseID, runID, why); err != nil {
			return err
		}
		runActive := workflow.RunStatus(runStatus).Active()
		if !runActive && !workflow.CaseClosed(caseStatus) {
			if err := tx.SetCaseStatus(ctx, caseID, workflow.CaseEscalated); err != nil {
				return err
			}
		}
		return tx.LogActivity(ctx, caseID, runID, "email_failed", "system",
			map[string]any{"proposal_id": proposalID, "execution_key": executionKey, "reason": reason})
	})
	return failed, err
}

// EmailFailed reports whether the send of executionKey was given up
// (FAILED); false when there is none (workflow.CaseReader).
func (s *Store) EmailFailed(ctx context.Context, executionKey string) (bool, error) {
	var failed bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM email_sends WHERE execution_key = $1 AND status = 'FAILED')`,
		executionKey).Scan(&failed)
	if err != nil {
		return false, fmt.Errorf("email failed %s: %w", executionKey, translate(err))
	}
	return failed, nil
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
