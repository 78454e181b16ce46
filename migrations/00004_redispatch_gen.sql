-- +goose Up
-- Re-dispatch generations of resume and send tasks (I6): when a worker dies
-- holding an agent:resume or email:send task "active", asynq only recovers
-- it after its lease (30–90 s). The reaper instead enqueues the same work
-- under a new deterministic TaskID (…:g<gen>) once nobody holds the lock
-- that guards it; the generation lives here so the id is derived from
-- Postgres, never from a clock (I4).
ALTER TABLE decisions ADD COLUMN dispatch_gen integer NOT NULL DEFAULT 0;
ALTER TABLE email_sends ADD COLUMN dispatch_gen integer NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE email_sends DROP COLUMN dispatch_gen;
ALTER TABLE decisions DROP COLUMN dispatch_gen;
