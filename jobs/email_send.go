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
	var p EmailSendPayload
	if err := json.Unmarshal(t.Payload(), &p); err != nil || p.ExecutionKey == "" {
		return fmt.Errorf("email:send payload %q: %v: %w", t.Payload(), err, asynq.SkipRetry)
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
		Headers: map[string]string{"X-Foiaflow-Execution-Key": row.ExecutionKey}, Date: now}
	if err := h.Sender.Send(ctx, m); err != nil {
		retried, _ := asynq.GetRetryCount(ctx)
		maxRetry, _ := asynq.GetMaxRetry(ctx)
		final := retried >= maxRetry
		_ = h.Store.MarkSendError(ctx, p.ExecutionKey, err.Error(), final)
		h.Log.Warn("email send failed", zap.String("execution_key", p.ExecutionKey), zap.Bool("final", final), zap.Error(err))
		return fmt.Errorf("send %s: %w", p.ExecutionKey, err)
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

func (h *EmailSendHandler) now() time.Time {
	if h.Now != nil {
		return h.Now().UTC()
	}
	return time.Now().UTC()
}
