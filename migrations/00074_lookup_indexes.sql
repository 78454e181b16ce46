-- +goose Up
-- Two lookups that scanned a whole table (found by make bench, issue 13):
-- GET /v1/inbound/{id} finds a reply's run by runs.trigger_message_id
-- (store/raw_messages.go), and the case page
-- (AnalysesOfCase) reads a case's analyses by response_analyses.case_id.
CREATE INDEX runs_trigger_message ON runs (trigger_message_id) WHERE trigger_message_id IS NOT NULL;
CREATE INDEX response_analyses_case ON response_analyses (case_id, id);

-- +goose Down
DROP INDEX response_analyses_case;
DROP INDEX runs_trigger_message;
