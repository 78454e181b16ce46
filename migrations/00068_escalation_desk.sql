-- +goose Up
-- Escalations reach a person (issue 12): a reviewer takes one (assignee)
-- and resolves it (resolved_by, resolution).
ALTER TABLE escalations
    ADD COLUMN assignee     text NOT NULL DEFAULT '',   -- API key name of who took it
    ADD COLUMN assigned_at  timestamptz,
    ADD COLUMN resolved_by  text NOT NULL DEFAULT '',
    ADD COLUMN resolution   text NOT NULL DEFAULT '';
CREATE INDEX escalations_open ON escalations (created_at, id) WHERE status = 'open';

-- +goose Down
DROP INDEX escalations_open;
ALTER TABLE escalations DROP COLUMN resolution, DROP COLUMN resolved_by, DROP COLUMN assigned_at, DROP COLUMN assignee;
