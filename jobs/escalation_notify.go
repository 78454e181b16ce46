package jobs

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/hibiken/asynq"

	"github.com/foiaflow/foiaflow/store"
)

// TypeEscalationNotify posts a new escalation to ESCALATION_WEBHOOK_URL.
const TypeEscalationNotify = "escalation:notify"

// Webhook headers of an escalation notice. The signature is
// "sha256=" + hex(HMAC-SHA256(secret, timestamp + "." + body)); the
// timestamp is Unix seconds; the delivery id names the escalation, so a
// receiver can drop a repeat (a retry after a lost 2xx answer).
const (
	HeaderWebhookSignature = "X-Foiaflow-Signature"
	HeaderWebhookTimestamp = "X-Foiaflow-Timestamp"
	HeaderWebhookDelivery  = "X-Foiaflow-Delivery"
)

// EscalationNotifyPayload names the escalation.
type EscalationNotifyPayload struct {
	EscalationID int64 `json:"escalation_id"`
}

// EscalationNotice is the webhook's JSON body.
type EscalationNotice struct {
	Type       string           `json:"type"` // escalation.opened
	Escalation store.Escalation `json:"escalation"`
}

// EscalationNotifyTaskID is the one TaskID of an escalation's notice (I4).
func EscalationNotifyTaskID(escalationID int64) string {
	return fmt.Sprintf("escalation-notify:%d", escalationID)
}

// NewEscalationNotifyTask builds the task of an escalation's notice.
func NewEscalationNotifyTask(escalationID int64) (*asynq.Task, error) {
	b, err := json.Marshal(EscalationNotifyPayload{EscalationID: escalationID})
	if err != nil {
		return nil, err
	}
	return asynq.NewTask(TypeEscalationNotify, b), nil
}

// QueueEscalationNotices writes one escalation:notify outbox row for each
// escalation not yet queued (at most limit), in one transaction with the
// claim, then dispatches them; it returns how many were queued. Run by the
// scheduler when ESCALATION_WEBHOOK_URL is set.
func QueueEscalationNotices(ctx context.Context, st *store.Store, d *Dispatcher, q Queues, limit int) (int, error) {
	var n int
	rows, err := st.InTx(ctx, func(tx *store.Tx) error {
		ids, err := tx.ClaimEscalationNotices(ctx, limit)
		if err != nil {
			return err
		}
		for _, id := range ids {
			t, err := NewEscalationNotifyTask(id)
			row, err := outboxRow(t, err, EscalationNotifyTaskID(id), q.Email, time.Now().UTC())
			if err != nil {
				return err
			}
			if err := tx.InsertOutbox(ctx, row); err != nil {
				return err
			}
		}
		n = len(ids)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("queue escalation notices: %w", err)
	}
	return n, d.Dispatch(ctx, rows)
}

// Webhook is the desk's webhook (ESCALATION_WEBHOOK_URL, signed with
// ESCALATION_WEBHOOK_SECRET) that escalation notices and the daily stale
// digest are posted to.
type Webhook struct {
	URL    string
	Secret []byte
	Client *http.Client     // nil: a client with a 10 s timeout
	Now    func() time.Time // nil: time.Now (the signature's timestamp)
}

// EscalationNotifyHandler posts escalation notices to Webhook. A notice
// the webhook accepted (2xx) is never posted again; any other answer or a
// transport error is retried by asynq.
type EscalationNotifyHandler struct {
	Store   *store.Store
	Webhook Webhook
}

// ProcessTask implements asynq.Handler.
func (h *EscalationNotifyHandler) ProcessTask(ctx context.Context, t *asynq.Task) error {
	p, err := decodePayload(t, func(p EscalationNotifyPayload) bool { return p.EscalationID > 0 })
	if err != nil {
		return err
	}
	e, notified, err := h.Store.GetEscalation(ctx, p.EscalationID)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("escalation:notify %d: %w", p.EscalationID, asynq.SkipRetry)
	}
	if err != nil || notified {
		return err
	}
	body, err := json.Marshal(EscalationNotice{Type: "escalation.opened", Escalation: e})
	if err != nil {
		return err
	}
	if err := h.Webhook.post(ctx, EscalationNotifyTaskID(e.ID), body); err != nil {
		return fmt.Errorf("escalation:notify %d: %w", e.ID, err)
	}
	return h.Store.MarkEscalationNotified(ctx, e.ID)
}

// post POSTs body to w.URL as JSON, signed with w.Secret (SignWebhook over
// the current Unix seconds) and named by deliveryID; nil only for a 2xx
// answer. A URL that cannot make a request is wrapped in asynq.SkipRetry;
// transport errors and other statuses are returned for asynq to retry.
func (w Webhook) post(ctx context.Context, deliveryID string, body []byte) error {
	now, client := w.Now, w.Client
	if now == nil {
		now = time.Now
	}
	ts := strconv.FormatInt(now().Unix(), 10)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%v: %w", err, asynq.SkipRetry)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderWebhookTimestamp, ts)
	req.Header.Set(HeaderWebhookSignature, SignWebhook(w.Secret, ts, body))
	req.Header.Set(HeaderWebhookDelivery, deliveryID)
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	_ = res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return fmt.Errorf("webhook answered %s", res.Status)
	}
	return nil
}

// SignWebhook returns "sha256=" + hex(HMAC-SHA256(secret, timestamp + "." + body)).
func SignWebhook(secret []byte, timestamp string, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(timestamp))
	m.Write([]byte("."))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}
