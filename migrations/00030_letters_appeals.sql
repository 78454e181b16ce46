-- +goose Up
-- Letters and appeals (issue 11). The jurisdiction's statute citation that
-- goes in letters is kept apart from the research note in `source`, which
-- never reaches a letter; the administrative appeal each statute provides is
-- stored with its body and periods. Both are seeded by the Go migration 31
-- from dataset/jurisdiction-statutes.csv and dataset/jurisdiction-appeals.csv.
ALTER TABLE jurisdictions
    ADD COLUMN statute_citation            text NOT NULL DEFAULT '',   -- e.g. "the Illinois Freedom of Information Act, 5 ILCS 140"
    ADD COLUMN statute_source              text NOT NULL DEFAULT '',   -- where the citation comes from (never in letters)
    ADD COLUMN appeal_kind                 text NOT NULL DEFAULT 'none' CHECK (appeal_kind IN ('agency','external','none')),
    ADD COLUMN appeal_body                 text NOT NULL DEFAULT '',   -- who decides the appeal
    ADD COLUMN appeal_citation             text NOT NULL DEFAULT '',   -- section granting the appeal, as written in letters
    ADD COLUMN appeal_file_days            integer CHECK (appeal_file_days BETWEEN 1 AND 366),   -- NULL: no statutory period
    ADD COLUMN appeal_file_business_days   boolean NOT NULL DEFAULT false,
    ADD COLUMN appeal_decide_days          integer CHECK (appeal_decide_days BETWEEN 1 AND 366), -- NULL: no statutory period
    ADD COLUMN appeal_decide_business_days boolean NOT NULL DEFAULT false,
    ADD COLUMN appeal_source               text NOT NULL DEFAULT '';   -- research note on the appeal (never in letters)

-- The appeal window of a case: the adverse determination (denial or partial
-- denial) that opened it, the last moment to file (NULL: no statutory
-- period), and when the appeal went out (the appeal's own response clock and
-- follow-ups run from there).
ALTER TABLE cases
    ADD COLUMN denied_at        timestamptz,
    ADD COLUMN appeal_deadline  timestamptz,
    ADD COLUMN appealed_at      timestamptz;

-- The appeal-window sweep looks for pending appeal proposals.
CREATE INDEX proposals_pending_action ON proposals (action_type) WHERE status = 'PENDING_APPROVAL';

-- +goose Down
DROP INDEX proposals_pending_action;
ALTER TABLE cases DROP COLUMN appealed_at, DROP COLUMN appeal_deadline, DROP COLUMN denied_at;
ALTER TABLE jurisdictions DROP COLUMN appeal_source, DROP COLUMN appeal_decide_business_days, DROP COLUMN appeal_decide_days,
    DROP COLUMN appeal_file_business_days, DROP COLUMN appeal_file_days, DROP COLUMN appeal_citation, DROP COLUMN appeal_body,
    DROP COLUMN appeal_kind, DROP COLUMN statute_source, DROP COLUMN statute_citation;
