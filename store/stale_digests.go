package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// StaleDigest is the daily digest of stale proposals of one UTC day: the
// webhook body fixed when it was claimed, and whether the webhook took it.
type StaleDigest struct {
	Day       time.Time       `db:"day"` // UTC midnight
	Proposals int             `db:"proposals"`
	Body      json.RawMessage `db:"body"`
	Delivered bool            `db:"delivered"`
}

// ClaimStaleDigest claims the digest of day (a UTC date) with its body and
// count; false when the day was claimed already (nothing is written). A
// digest listing no proposal is recorded as delivered: there is nothing to
// post. The caller writes the digest's outbox row in the same transaction.
func (t *Tx) ClaimStaleDigest(ctx context.Context, day time.Time, proposals int, body json.RawMessage) (bool, error) {
	ct, err := t.exec(ctx, `INSERT INTO stale_digests (day, proposals, body, delivered_at)
		VALUES ($1::date, $2, $3, CASE WHEN $2 = 0 THEN now() END) ON CONFLICT (day) DO NOTHING`,
		day.UTC().Format(time.DateOnly), proposals, body)
	if err != nil {
		return false, fmt.Errorf("claim stale digest %s: %w", day.Format(time.DateOnly), translate(err))
	}
	return ct.RowsAffected() == 1, nil
}

// StaleDigestClaimed reports whether the digest of day has been claimed.
func (s *Store) StaleDigestClaimed(ctx context.Context, day time.Time) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM stale_digests WHERE day = $1::date)`, day.UTC().Format(time.DateOnly)).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("stale digest %s: %w", day.Format(time.DateOnly), translate(err))
	}
	return ok, nil
}

// GetStaleDigest loads the digest of day; ErrNotFound.
func (s *Store) GetStaleDigest(ctx context.Context, day time.Time) (StaleDigest, error) {
	var d StaleDigest
	err := s.pool.QueryRow(ctx, `SELECT day, proposals, body, delivered_at IS NOT NULL FROM stale_digests WHERE day = $1::date`,
		day.UTC().Format(time.DateOnly)).Scan(&d.Day, &d.Proposals, &d.Body, &d.Delivered)
	if err != nil {
		return d, fmt.Errorf("stale digest %s: %w", day.Format(time.DateOnly), translate(err))
	}
	return d, nil
}

// MarkStaleDigestDelivered records that the webhook accepted the digest.
func (s *Store) MarkStaleDigestDelivered(ctx context.Context, day time.Time) error {
	_, err := s.pool.Exec(ctx, `UPDATE stale_digests SET delivered_at = now() WHERE day = $1::date AND delivered_at IS NULL`,
		day.UTC().Format(time.DateOnly))
	return translate(err)
}
