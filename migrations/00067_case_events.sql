-- +goose Up
-- Live step events of a case (issue 12): one row per committed step and per
-- park, end, sent email and new escalation, written by triggers in the
-- transaction that commits the fact, so an event exists exactly when its
-- fact does. GET /v1/cases/{id}/events replays rows after Last-Event-ID and
-- then follows NOTIFY case_events (payload: the case id), which any API
-- replica receives.
--
-- Gaps: ids come from one sequence, so two transactions could commit ids
-- out of order and a reader that saw the later one would skip the earlier.
-- Every event insert first takes a transaction advisory lock on its case,
-- so within a case ids are assigned in commit order; readers read per case.
CREATE TABLE case_events (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,   -- the SSE id:
    case_id     integer NOT NULL REFERENCES cases(id),
    run_id      bigint,
    type        text NOT NULL CHECK (type IN ('status','parked','completed','failed','sent','escalated')),
    step        text NOT NULL DEFAULT '',       -- status: the node that committed
    detail      jsonb NOT NULL DEFAULT '{}',
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX case_events_case ON case_events (case_id, id);

-- +goose StatementBegin
CREATE FUNCTION case_event(p_case integer, p_run bigint, p_type text, p_step text, p_detail jsonb) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext(current_schema() || '.case_events'), p_case);
    INSERT INTO case_events (case_id, run_id, type, step, detail) VALUES (p_case, p_run, p_type, p_step, p_detail);
    PERFORM pg_notify('case_events', p_case::text);
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION run_step_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE c integer;
BEGIN
    SELECT case_id INTO c FROM runs WHERE id = NEW.run_id;
    PERFORM case_event(c, NEW.run_id, 'status', NEW.node, jsonb_build_object('seq', NEW.seq, 'outcome', NEW.outcome, 'next_step', NEW.next_node));
    IF NEW.outcome = 'park' THEN
        PERFORM case_event(c, NEW.run_id, 'parked', NEW.node, '{}');
    ELSIF NEW.outcome = 'end' THEN
        PERFORM case_event(c, NEW.run_id, 'completed', NEW.node, '{}');
    ELSIF NEW.outcome = 'error' THEN
        PERFORM case_event(c, NEW.run_id, 'failed', NEW.node, jsonb_build_object('error', NEW.error));
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER run_steps_event AFTER INSERT ON run_steps FOR EACH ROW EXECUTE FUNCTION run_step_event();

-- +goose StatementBegin
CREATE FUNCTION email_sent_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM case_event(NEW.case_id, NULL, 'sent', '', jsonb_build_object('proposal_id', NEW.proposal_id,
        'execution_key', NEW.execution_key, 'message_id', NEW.message_id));
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER email_sends_sent_event AFTER UPDATE OF status ON email_sends
    FOR EACH ROW WHEN (NEW.status = 'SENT' AND OLD.status IS DISTINCT FROM 'SENT') EXECUTE FUNCTION email_sent_event();

-- +goose StatementBegin
CREATE FUNCTION escalation_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM case_event(NEW.case_id, NEW.run_id, 'escalated', '', jsonb_build_object('escalation_id', NEW.id, 'reason', NEW.reason));
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER escalations_event AFTER INSERT ON escalations FOR EACH ROW EXECUTE FUNCTION escalation_event();

-- +goose Down
DROP TRIGGER escalations_event ON escalations;
DROP TRIGGER email_sends_sent_event ON email_sends;
DROP TRIGGER run_steps_event ON run_steps;
DROP FUNCTION escalation_event(), email_sent_event(), run_step_event(), case_event(integer, bigint, text, text, jsonb);
DROP TABLE case_events;
