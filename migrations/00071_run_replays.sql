-- +goose Up
-- Time travel (issue 13): POST /v1/runs/{id}/fork starts a run of the same
-- case from an earlier step's checkpoint. The new run is a replay: replay_of
-- names the run it was forked from and replay_step the step it re-runs from;
-- a replay proposes and never sends without a human decision (the graph
-- gates it; InsertEmailSend refuses an email of a replay's proposal that no
-- APPROVE or EDIT decided). replay_by is who forked it. initial_state is the
-- state a run was created with: with the state deltas of run_steps it
-- rebuilds the checkpoint before any step (runs created before this
-- migration rebuild it from their trigger columns).
ALTER TABLE runs
    ADD COLUMN replay_of     bigint REFERENCES runs(id),
    ADD COLUMN replay_step   integer CHECK (replay_step IS NULL OR replay_step >= 0),
    ADD COLUMN replay_by     text NOT NULL DEFAULT '',
    ADD COLUMN initial_state jsonb;
ALTER TABLE runs ADD CONSTRAINT runs_replay_step CHECK ((replay_of IS NULL) = (replay_step IS NULL));
CREATE INDEX runs_replays ON runs (replay_of) WHERE replay_of IS NOT NULL;

-- +goose Down
DROP INDEX runs_replays;
ALTER TABLE runs DROP CONSTRAINT runs_replay_step;
ALTER TABLE runs DROP COLUMN initial_state, DROP COLUMN replay_by, DROP COLUMN replay_step, DROP COLUMN replay_of;
