-- +goose Up
-- A decision the worker rejected (stale by the time it ran, failed
-- validation, adjustment limit) no longer holds its proposal version: the
-- reviewer can decide that version again (issue 10, "Decisions that can't
-- strand a case"). Racing decisions on one version still conflict: at most
-- one accepted or applied decision per (proposal, version) (I7).
ALTER TABLE decisions DROP CONSTRAINT decisions_proposal_id_version_key;
CREATE UNIQUE INDEX decisions_proposal_version_live ON decisions (proposal_id, version) WHERE status <> 'rejected';

-- +goose Down
DROP INDEX decisions_proposal_version_live;
ALTER TABLE decisions ADD CONSTRAINT decisions_proposal_id_version_key UNIQUE (proposal_id, version);
