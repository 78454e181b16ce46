-- +goose Up
-- Cost and audit (issue 12): GET /v1/costs sums llm_calls per UTC day (and
-- per case through runs), GET /v1/audit lists decisions, sent emails and
-- webhook notices newest first from a date. These indexes serve the range
-- scans; llm_calls rows without a model are memoized offline results, not
-- LLM calls.
CREATE INDEX llm_calls_created ON llm_calls (created_at) WHERE model <> '';
CREATE INDEX decisions_created ON decisions (created_at);
CREATE INDEX email_sends_sent ON email_sends (sent_at) WHERE status = 'SENT';
CREATE INDEX escalations_notified ON escalations (notified_at) WHERE notified_at IS NOT NULL;

-- +goose Down
DROP INDEX escalations_notified;
DROP INDEX email_sends_sent;
DROP INDEX decisions_created;
DROP INDEX llm_calls_created;
