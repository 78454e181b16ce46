package jobs

import (
	"context"
	"errors"
	"fmt"

	"github.com/foiaflow/foiaflow/store"
)

// ErrWebhookReplayed is returned by RecordInboundReply when the provider's
// delivery token was accepted before (a replayed signed webhook); nothing
// is recorded.
var ErrWebhookReplayed = errors.New("jobs: this signed delivery (token) was already accepted")

// InboundReply is an agency email whose raw bytes are already in the
// message store under SHA256 (lowercase hex), SizeBytes long, delivered by
// Provider ("raw" or "mailgun") with the provider's one-time Token ("" for
// none). Oversize is set when it is over MESSAGE_MAX_BYTES (stored and
// flagged, read by its headers only).
type InboundReply struct {
	SHA256    string
	SizeBytes int64
	Provider  string
	Token     string
	Oversize  bool
}

// InboundReceipt says what RecordInboundReply did: the raw_messages row,
// whether these bytes were new (a duplicate queues nothing) and the
// inbound:parse task id when one was queued.
type InboundReceipt struct {
	Raw     store.RawMessage
	Created bool
	TaskID  string
}

// RecordInboundReply records an inbound email in one transaction (issue
// 10, "store first, parse after"): the raw_messages row (deduplicated by
// SHA-256), the claim of the provider's token, and, for new bytes, the
// inbound:parse outbox row, dispatched after commit. Parsing, matching and
// the case's run happen in the inbound:parse job. Errors:
// ErrWebhookReplayed.
func (u *UseCases) RecordInboundReply(ctx context.Context, in InboundReply) (InboundReceipt, error) {
	var res InboundReceipt
	rows, err := u.Store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if res.Raw, res.Created, err = tx.InsertRawMessage(ctx, in.SHA256, in.SizeBytes, in.Provider, in.Oversize); err != nil {
			return err
		}
		if in.Token != "" {
			fresh, err := tx.ClaimWebhookToken(ctx, in.Provider, in.Token, res.Raw.ID)
			if err != nil {
				return err
			}
			if !fresh {
				return ErrWebhookReplayed
			}
		}
		if !res.Created {
			return nil
		}
		res.TaskID, err = QueueInboundParse(ctx, tx, u.Queues, res.Raw.ID)
		return err
	})
	if err != nil {
		return InboundReceipt{}, fmt.Errorf("record inbound email %s: %w", in.SHA256, err)
	}
	u.Dispatch.AfterCommit(ctx, rows)
	return res, nil
}
