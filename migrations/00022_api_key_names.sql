-- +goose Up
-- API key names are the actor recorded on every decision, so two active
-- keys may not share one (compared case-insensitively). A revoked key's name
-- may be reused by its replacement. Active duplicates created before this
-- migration keep working: every one but the oldest is renamed
-- "<name> #<id>" (the audit trail keeps the id).
UPDATE api_keys k SET name = k.name || ' #' || k.id
WHERE k.revoked_at IS NULL AND EXISTS (
    SELECT 1 FROM api_keys o
    WHERE o.revoked_at IS NULL AND lower(o.name) = lower(k.name) AND o.id < k.id);
CREATE UNIQUE INDEX api_keys_name_active ON api_keys (lower(name)) WHERE revoked_at IS NULL;

-- +goose Down
DROP INDEX api_keys_name_active;
