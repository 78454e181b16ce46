-- +goose Up
-- Every new escalation is posted once to ESCALATION_WEBHOOK_URL (issue 12):
-- notify_queued_at is set when its escalation:notify outbox row is written
-- (one per escalation), notified_at when the webhook answered 2xx.
-- Escalations opened before this migration are not announced.
ALTER TABLE escalations
    ADD COLUMN notify_queued_at timestamptz,
    ADD COLUMN notified_at      timestamptz;
UPDATE escalations SET notify_queued_at = now();
CREATE INDEX escalations_unnotified ON escalations (id) WHERE notify_queued_at IS NULL;

-- +goose Down
DROP INDEX escalations_unnotified;
ALTER TABLE escalations DROP COLUMN notified_at, DROP COLUMN notify_queued_at;
