package store

import (
	"context"
	"fmt"
	"time"
)

// ClaimWebhookToken records a provider's per-delivery signing token inside
// the ingestion transaction. It returns false, and changes nothing, when the
// token was seen before: the delivery is a replay of a signed request and
// must be rejected. It is claimed in the transaction that records the raw
// bytes (rawMessageID), before anything is parsed: a delivery that later
// fails to parse has still used its token.
func (t *Tx) ClaimWebhookToken(ctx context.Context, provider, token string, rawMessageID int64) (bool, error) {
	ct, err := t.exec(ctx, `INSERT INTO webhook_tokens (provider, token, raw_message_id) VALUES ($1, $2, $3)
		ON CONFLICT (token) DO NOTHING`, provider, token, rawMessageID)
	if err != nil {
		return false, fmt.Errorf("claim webhook token: %w", translate(err))
	}
	return ct.RowsAffected() == 1, nil
}

// DeleteWebhookTokensBefore removes tokens received before before
// (retention: older than the replay window they can no longer verify);
// returns rows deleted.
func (s *Store) DeleteWebhookTokensBefore(ctx context.Context, before time.Time) (int64, error) {
	ct, err := s.pool.Exec(ctx, `DELETE FROM webhook_tokens WHERE received_at < $1`, before)
	return ct.RowsAffected(), translate(err)
}
