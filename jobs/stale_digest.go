package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"

	"github.com/foiaflow/foiaflow/store"
)

// TypeStaleDigest posts the day's digest of stale proposals to
// ESCALATION_WEBHOOK_URL (the webhook of escalation notices).
const TypeStaleDigest = "digest:stale"

// staleDigestMax bounds the proposals one digest lists (oldest first).
const staleDigestMax = 500

// StaleDigestPayload names the digest's UTC day (YYYY-MM-DD).
type StaleDigestPayload struct {
	Day string `json:"day"`
}

// StaleProposal is one proposal of the digest: waiting for a reviewer
// since PendingSince.
type StaleProposal struct {
	ProposalID      int64     `json:"proposal_id"`
	CaseID          int64     `json:"case_id"`
	Action          string    `json:"action"`
	Version         int       `json:"version"`
	Agency          string    `json:"agency"`
	Jurisdiction    string    `json:"jurisdiction"`
	Subject         string    `json:"subject"`
	PendingSince    time.Time `json:"pending_since"`
	OpenEscalations int64     `json:"open_escalations"` // of the case
}

// StaleDigest is the webhook's JSON body: the proposals pending for longer
// than OlderThanHours on Day, oldest first (at most 500; Truncated when
// more were).
type StaleDigest struct {
	Type           string          `json:"type"` // proposals.stale_digest
	Day            string          `json:"day"`  // UTC, YYYY-MM-DD
	OlderThanHours float64         `json:"older_than_hours"`
	Proposals      []StaleProposal `json:"proposals"`
	Truncated      bool            `json:"truncated"`
}

// StaleDigestTaskID is the one TaskID (and webhook delivery id) of a day's
// digest (I4).
func StaleDigestTaskID(day string) string { return "stale-digest:" + day }

// NewStaleDigestTask builds the task of a day's digest.
func NewStaleDigestTask(day string) (*asynq.Task, error) {
	b, err := json.Marshal(StaleDigestPayload{Day: day})
	if err != nil {
		return nil, err
	}
	return asynq.NewTask(TypeStaleDigest, b), nil
}

// QueueStaleDigest queues the digest of now's UTC day once: the proposals
// pending approval since before now-olderThan (store.ReviewQueue), claimed
// for the day with the digest:stale outbox row in one transaction, then
// dispatched. It returns how many proposals the queued digest lists; 0 when
// the day's digest was claimed already or nothing is stale (the day is
// then claimed and nothing posted). Run by the scheduler.
func QueueStaleDigest(ctx context.Context, st *store.Store, d *Dispatcher, q Queues, now time.Time, olderThan time.Duration) (int, error) {
	now = now.UTC()
	day := now.Format(time.DateOnly)
	if claimed, err := st.StaleDigestClaimed(ctx, now); err != nil || claimed {
		return 0, err
	}
	items, err := st.ReviewQueue(ctx, store.QueueFilter{CreatedTo: now.Add(-olderThan), Limit: staleDigestMax + 1})
	if err != nil {
		return 0, fmt.Errorf("stale digest %s: %w", day, err)
	}
	dg := StaleDigest{Type: "proposals.stale_digest", Day: day, OlderThanHours: olderThan.Hours(),
		Proposals: []StaleProposal{}, Truncated: len(items) > staleDigestMax}
	for _, it := range items[:min(len(items), staleDigestMax)] {
		dg.Proposals = append(dg.Proposals, StaleProposal{ProposalID: it.ProposalID, CaseID: it.CaseID, Action: it.Action,
			Version: it.Version, Agency: it.AgencyName, Jurisdiction: it.Jurisdiction, Subject: it.Subject,
			PendingSince: it.CreatedAt.UTC(), OpenEscalations: it.OpenEscalations})
	}
	body, err := json.Marshal(dg)
	if err != nil {
		return 0, err
	}
	n := len(dg.Proposals)
	rows, err := st.InTx(ctx, func(tx *store.Tx) error {
		ok, err := tx.ClaimStaleDigest(ctx, now, n, body)
		if err != nil || !ok {
			n = 0 // another leader claimed the day first
			return err
		}
		if n == 0 {
			return nil
		}
		t, err := NewStaleDigestTask(day)
		row, err := outboxRow(t, err, StaleDigestTaskID(day), q.Email, now)
		if err != nil {
			return err
		}
		return tx.InsertOutbox(ctx, row)
	})
	if err != nil {
		return 0, fmt.Errorf("queue stale digest %s: %w", day, err)
	}
	return n, d.Dispatch(ctx, rows)
}

// StaleDigestHandler posts a day's digest to Webhook, signed like the
// escalation notices. A digest the webhook accepted (2xx) is never posted
// again; any other answer or a transport error is retried by asynq.
type StaleDigestHandler struct {
	Store   *store.Store
	Webhook Webhook
}

// ProcessTask implements asynq.Handler.
func (h *StaleDigestHandler) ProcessTask(ctx context.Context, t *asynq.Task) error {
	p, err := decodePayload(t, func(p StaleDigestPayload) bool {
		_, err := time.Parse(time.DateOnly, p.Day)
		return err == nil
	})
	if err != nil {
		return err
	}
	day, _ := time.Parse(time.DateOnly, p.Day) // valid: checked by decodePayload
	dg, err := h.Store.GetStaleDigest(ctx, day)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("digest:stale %s: %w", p.Day, asynq.SkipRetry)
	}
	if err != nil || dg.Delivered {
		return err
	}
	if err := h.Webhook.post(ctx, StaleDigestTaskID(p.Day), dg.Body); err != nil {
		return fmt.Errorf("digest:stale %s: %w", p.Day, err)
	}
	return h.Store.MarkStaleDigestDelivered(ctx, day)
}
