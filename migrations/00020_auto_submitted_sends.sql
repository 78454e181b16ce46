-- +goose Up
-- Loop safety, outbound side (issue 10): an email that goes out without a
-- human decision is marked Auto-Submitted: auto-generated (RFC 3834), and
-- automatic sends per case and day are capped (AUTO_SENDS_PER_CASE_PER_DAY);
-- the cap counts these rows.
ALTER TABLE email_sends ADD COLUMN auto_submitted boolean NOT NULL DEFAULT false;
CREATE INDEX email_sends_auto_case ON email_sends (case_id, created_at) WHERE auto_submitted;

-- +goose Down
DROP INDEX email_sends_auto_case;
ALTER TABLE email_sends DROP COLUMN auto_submitted;
