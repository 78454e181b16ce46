-- +goose Up
-- A step's commit is sent in one round trip (BEGIN, effects, checkpoint,
-- outbox, COMMIT): its compare-and-set on runs.step_seq (I3) must abort the
-- transaction by itself when the run moved on, so the advance statement
-- calls stale_checkpoint when it advanced nothing. SQLSTATE FF409 is the
-- store's ErrStaleCheckpoint.
-- +goose StatementBegin
CREATE FUNCTION stale_checkpoint(p_run bigint, p_seq integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'stale checkpoint: run % is no longer at step %', p_run, p_seq USING ERRCODE = 'FF409';
END $$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION stale_checkpoint(bigint, integer);
