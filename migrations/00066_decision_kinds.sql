-- +goose Up
-- The full decision set of the reviewer's desk (issue 12, seed 004):
-- REJECT (the proposal is wrong: nothing is sent and the case escalates to a
-- person, with the reviewer's reason), SKIP (nothing is sent this time and
-- the case continues its schedule) and PROMOTE (an earlier version becomes
-- the current one under a new version number and is gated again).
ALTER TABLE decisions DROP CONSTRAINT decisions_action_check;
ALTER TABLE decisions ADD CONSTRAINT decisions_action_check
    CHECK (action IN ('APPROVE','EDIT','ADJUST','DISMISS','WITHDRAW','REJECT','SKIP','PROMOTE'));
ALTER TABLE decisions
    ADD COLUMN reason          text NOT NULL DEFAULT '',  -- REJECT: why, shown on the escalation
    ADD COLUMN promote_version integer CHECK (promote_version IS NULL OR promote_version > 0); -- PROMOTE: the earlier version

ALTER TABLE proposals DROP CONSTRAINT proposals_status_check;
ALTER TABLE proposals ADD CONSTRAINT proposals_status_check CHECK (status IN (
    'DRAFT','PENDING_APPROVAL','APPROVED','EXECUTED','SUPERSEDED','DISMISSED','WITHDRAWN','REJECTED','SKIPPED'));

ALTER TABLE proposal_versions DROP CONSTRAINT proposal_versions_source_check;
ALTER TABLE proposal_versions ADD CONSTRAINT proposal_versions_source_check
    CHECK (source IN ('ai_generated','ai_regenerated','human_edited','promoted'));
ALTER TABLE proposal_versions
    ADD COLUMN promoted_from integer CHECK (promoted_from IS NULL OR promoted_from > 0); -- source 'promoted': the version copied

-- +goose Down
ALTER TABLE proposal_versions DROP COLUMN promoted_from;
ALTER TABLE proposal_versions DROP CONSTRAINT proposal_versions_source_check;
ALTER TABLE proposal_versions ADD CONSTRAINT proposal_versions_source_check
    CHECK (source IN ('ai_generated','ai_regenerated','human_edited'));
ALTER TABLE proposals DROP CONSTRAINT proposals_status_check;
ALTER TABLE proposals ADD CONSTRAINT proposals_status_check CHECK (status IN (
    'DRAFT','PENDING_APPROVAL','APPROVED','EXECUTED','SUPERSEDED','DISMISSED','WITHDRAWN'));
ALTER TABLE decisions DROP COLUMN promote_version, DROP COLUMN reason;
ALTER TABLE decisions DROP CONSTRAINT decisions_action_check;
ALTER TABLE decisions ADD CONSTRAINT decisions_action_check
    CHECK (action IN ('APPROVE','EDIT','ADJUST','DISMISS','WITHDRAW'));
