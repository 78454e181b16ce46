package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
	"go.uber.org/zap"

	"github.com/foiaflow/foiaflow/mail"
	"github.com/foiaflow/foiaflow/store"
)

// TypeEmailSend sends the email claimed under an execution key.
const TypeEmailSend = "email:send"

// EmailSendPayload names the execution key.
type EmailSendPayload struct {
	ExecutionKey string `json:"execution_key"`
}

// NewEmailSendTask builds the email:send task of an execution key (enqueued
// through the outbox with id EmailTaskID).
func NewEmailSendTask(executionKey string) (*asynq.Task, error) {
	b, err := json.Marshal(EmailSendPayload{ExecutionKey: executionKey})
	if err != nil {
		return nil, err
	}
	return asynq.NewTask(TypeEmailSend, b), nil
}

// EmailSendHandler sends at most once per execution key (I5): under the
// key's send lock the row moves QUEUED → SENDING, the transport gets the
// deterministic Message-ID, then the row is marked SENT. The one window left — the transport accepted but
// the process died before MarkSent — resends the same Message-ID, which a
// receiving MTA or the .eml sink deduplicates.
type EmailSendHandler struct {
	Store  *store.Store
	Sender mail.Sender
	Log    *zap.Logger
	Now    func() time.Time
	// OnSent is called after a send is recorded (metrics). May be nil.
	OnSent func(caseID int64, latency time.Duration)
}

// ProcessTask implements asynq.Handler.
func (h *EmailSendHandler) ProcessTask(ctx context.Context, t *asynq.Task) error {
	p, err := decodePayload(t, func(p EmailSendPayload) bool { return p.ExecutionKey != "" })
	if err != nil {
		return err
	}
	// The send lock says "someone is sending this key right now" to the
	// reaper; a second task for the key waits (no retry burnt).
	lock, err := h.Store.TryLockSend(ctx, p.ExecutionKey)
	if err != nil {
		return err
	}
	defer lock.Unlock(ctx)
	now := h.now()
	row, ok, err := h.Store.BeginSend(ctx, p.ExecutionKey)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("email:send %s: %w", p.ExecutionKey, asynq.SkipRetry)
	}
	if err != nil {
		return err
	}
	if !ok {
		return nil // already sent or failed for good
	}
	if wait := row.SendAfter.Sub(now); wait > time.Second {
		if err := h.Store.MarkSendError(ctx, p.ExecutionKey, "", false); err != nil {
			return err
		}
		return notYetError{delay: wait}
	}
	m := mail.Outbound{From: row.From, To: row.To, ReplyTo: row.ReplyTo, Subject: row.Subject, Text: row.Text,
		HTML: row.HTML, MessageID: row.MessageID, InReplyTo: row.InReplyTo, References: row.References,
		Headers: outboundHeaders(row), Date: now}
	if err := h.Sender.Send(ctx, m); err != nil {
		return h.sendFailed(ctx, row.CaseID, p.ExecutionKey, err)
	}
	if err := h.Store.MarkSent(ctx, p.ExecutionKey, h.now()); err != nil {
		return fmt.Errorf("mark sent %s: %w", p.ExecutionKey, err)
	}
	h.Log.Info("email sent", zap.String("execution_key", p.ExecutionKey), zap.String("message_id", row.MessageID),
		zap.Int64("case", row.CaseID))
	if h.OnSent != nil {
		h.OnSent(row.CaseID, h.now().Sub(row.CreatedAt))
	}
	return nil
}

// sendFailed records a failed attempt. A failure that will recur
// (mail.IsPermanent: unrenderable message, SMTP 5xx) or the last retry
// gives the send up and escalates the case to a human with the reason
// (store.FailSend); anything else is retried by asynq.
func (h *EmailSendHandler) sendFailed(ctx context.Context, caseID int64, key string, err error) error {
	retried, _ := asynq.GetRetryCount(ctx)
	maxRetry, _ := asynq.GetMaxRetry(ctx)
	permanent := mail.IsPermanent(err)
	if !permanent && retried < maxRetry {
		h.Log.Warn("email send failed; will retry", zap.String("execution_key", key), zap.Int("retried", retried), zap.Error(err))
		if merr := h.Store.MarkSendError(ctx, key, err.Error(), false); merr != nil {
			h.Log.Warn("recording the send error failed", zap.String("execution_key", key), zap.Error(merr))
		}
		return fmt.Errorf("send %s: %w", key, err)
	}
	reason := err.Error()
	if !permanent {
		reason = fmt.Sprintf("gave up after %d attempts: %s", retried+1, reason)
	}
	failed, ferr := h.Store.FailSend(ctx, caseID, key, reason)
	if ferr != nil {
		return fmt.Errorf("send %s: %w (and recording the failure: %v)", key, err, ferr)
	}
	h.Log.Error("email not sent; case escalated", zap.String("execution_key", key), zap.Bool("permanent", permanent),
		zap.Bool("escalated", failed), zap.Error(err))
	return fmt.Errorf("send %s: %w: %w", key, err, asynq.SkipRetry)
}

// outboundHeaders are the extra headers of a send. Nothing internal (no
// execution key, case or proposal id) travels in them. An automatic send
// (no human decided it) says so per RFC 3834 §5 and asks Exchange-style
// responders not to answer with out-of-office or auto-replies; a send a
// reviewer approved or edited is the requester's own mail and carries
// neither, so agencies' acknowledgment robots still answer it.
func outboundHeaders(row store.EmailSendRow) map[string]string {
	if !row.AutoSubmitted {
		return nil
	}
	return map[string]string{"Auto-Submitted": "auto-generated", "X-Auto-Response-Suppress": "OOF, AutoReply"}
}

func (h *EmailSendHandler) now() time.Time {
	if h.Now != nil {
		return h.Now().UTC()
	}
	return time.Now().UTC()
}
