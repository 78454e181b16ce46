-- +goose Up
-- The daily digest of stale proposals (issue 12): one row per UTC day,
-- claimed by the scheduler in the transaction that writes its
-- digest:stale outbox row, so a day's digest is queued at most once.
-- body is the webhook's JSON, fixed when claimed (a retry posts the same
-- list); delivered_at is set when the webhook answered 2xx, or at the
-- claim when no proposal was stale (nothing is posted).
CREATE TABLE stale_digests (
    day           date PRIMARY KEY,              -- UTC
    proposals     integer NOT NULL DEFAULT 0,    -- how many the body lists
    body          jsonb NOT NULL DEFAULT '{}',
    queued_at     timestamptz NOT NULL DEFAULT now(),
    delivered_at  timestamptz
);

-- +goose Down
DROP TABLE stale_digests;
