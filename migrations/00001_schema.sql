-- +goose Up
-- foiaflow core schema. Money is integer cents (I8); times are timestamptz UTC.

CREATE TABLE jurisdictions (
    code           text PRIMARY KEY,              -- "US", "DC", "TX", …
    name           text NOT NULL,
    days           integer NOT NULL CHECK (days > 0),
    business_days  boolean NOT NULL,
    source         text NOT NULL                  -- statute / page the row cites
);

CREATE TABLE agencies (
    id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name               text NOT NULL,
    email              text NOT NULL DEFAULT '',
    email_domain       text NOT NULL DEFAULT '',
    portal_url         text NOT NULL DEFAULT '',
    jurisdiction_code  text REFERENCES jurisdictions(code),
    timezone           text NOT NULL DEFAULT 'America/New_York',
    created_at         timestamptz NOT NULL DEFAULT now(),
    UNIQUE (name, email)
);

-- cases.id is an integer so that the advisory lock key (namespace, case id) fits
-- pg_advisory_lock(int, int).
CREATE TABLE cases (
    id                    integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    agency_id             bigint NOT NULL REFERENCES agencies(id),
    jurisdiction_code     text REFERENCES jurisdictions(code),
    subject               text NOT NULL,
    requested_records     jsonb NOT NULL DEFAULT '[]',
    scope_items           jsonb NOT NULL DEFAULT '[]',
    constraints           text[] NOT NULL DEFAULT '{}',
    autopilot_mode        text NOT NULL DEFAULT 'SUPERVISED' CHECK (autopilot_mode IN ('AUTO','SUPERVISED','MANUAL')),
    status                text NOT NULL DEFAULT 'awaiting_response' CHECK (status IN (
                              'draft','awaiting_response','awaiting_requester','needs_review','human_task',
                              'completed','closed_no_records','withdrawn','escalated')),
    paused                boolean NOT NULL DEFAULT false,
    reply_token           text NOT NULL UNIQUE,
    portal_url            text NOT NULL DEFAULT '',
    tracking_number       text NOT NULL DEFAULT '',
    fee_cents             bigint CHECK (fee_cents IS NULL OR fee_cents >= 0),
    requester_name        text NOT NULL DEFAULT '',
    sent_at               timestamptz,
    due_at                timestamptz,
    next_followup_at      timestamptz,
    followup_count        integer NOT NULL DEFAULT 0,
    last_followup_at      timestamptz,
    estimated_completion  date,
    tolled_since          timestamptz,
    tolled_days           integer NOT NULL DEFAULT 0,
    created_at            timestamptz NOT NULL DEFAULT now(),
    updated_at            timestamptz NOT NULL DEFAULT now(),
    closed_at             timestamptz
);
CREATE INDEX cases_followup_due ON cases (next_followup_at) WHERE status = 'awaiting_response' AND NOT paused;

CREATE TABLE messages (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    case_id         integer REFERENCES cases(id),          -- NULL: orphan, matched no case
    direction       text NOT NULL CHECK (direction IN ('inbound','outbound')),
    message_id      text NOT NULL UNIQUE,                  -- RFC 5322 Message-ID with <>
    in_reply_to     text NOT NULL DEFAULT '',
    "references"    text[] NOT NULL DEFAULT '{}',
    from_addr       text NOT NULL DEFAULT '',
    to_addrs        text[] NOT NULL DEFAULT '{}',
    subject         text NOT NULL DEFAULT '',
    body_text       text NOT NULL DEFAULT '',
    body_html       text NOT NULL DEFAULT '',
    headers         jsonb NOT NULL DEFAULT '{}',
    attachments     jsonb NOT NULL DEFAULT '[]',
    raw_size        integer NOT NULL DEFAULT 0,
    match_method    text NOT NULL DEFAULT '',               -- reply_token | in_reply_to | sender | manual
    received_at     timestamptz NOT NULL DEFAULT now(),
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX messages_case ON messages (case_id, received_at);
CREATE INDEX messages_orphans ON messages (created_at) WHERE case_id IS NULL;

CREATE TABLE runs (
    id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    case_id             integer NOT NULL REFERENCES cases(id),
    trigger             text NOT NULL CHECK (trigger IN ('agency_reply','time_based_followup','initial_request','manual_review')),
    trigger_key         text NOT NULL UNIQUE,      -- dedupes run creation: reply:<msg>, followup:<case>:<date>, …
    trigger_message_id  bigint REFERENCES messages(id),
    status              text NOT NULL DEFAULT 'queued' CHECK (status IN (
                            'queued','running','parked','completed','failed','superseded','cancelled')),
    next_node           text NOT NULL DEFAULT '',
    step_seq            integer NOT NULL DEFAULT 0,   -- checkpoint version (I3)
    state               jsonb NOT NULL DEFAULT '{}',
    interrupt           jsonb,                         -- gate payload while parked
    error               text NOT NULL DEFAULT '',
    dispatch_gen        integer NOT NULL DEFAULT 0,   -- bumped by the reaper to re-dispatch
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    finished_at         timestamptz
);
CREATE INDEX runs_case ON runs (case_id, id);
CREATE INDEX runs_active ON runs (updated_at) WHERE status IN ('queued','running');

CREATE TABLE run_steps (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id       bigint NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq          integer NOT NULL,
    node         text NOT NULL,
    outcome      text NOT NULL,                -- next | park | end | error
    next_node    text NOT NULL DEFAULT '',
    state_delta  jsonb NOT NULL DEFAULT '{}',
    error        text NOT NULL DEFAULT '',
    worker_id    text NOT NULL DEFAULT '',
    started_at   timestamptz NOT NULL,
    finished_at  timestamptz NOT NULL,
    UNIQUE (run_id, seq)
);
CREATE INDEX run_steps_finished ON run_steps (finished_at);

CREATE TABLE response_analyses (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    case_id          integer NOT NULL REFERENCES cases(id),
    message_id       bigint NOT NULL REFERENCES messages(id),
    run_id           bigint NOT NULL REFERENCES runs(id),
    class            text NOT NULL,
    confidence       real NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
    sentiment        text NOT NULL,
    fee_cents        bigint,
    deadline         date,
    tracking_number  text NOT NULL DEFAULT '',
    analyzer         text NOT NULL DEFAULT '',
    full_analysis    jsonb NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (run_id, message_id)
);

CREATE TABLE proposals (
    id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    case_id             integer NOT NULL REFERENCES cases(id),
    run_id              bigint NOT NULL REFERENCES runs(id),
    proposal_key        text NOT NULL UNIQUE,          -- {case}:{trigger}:{action}:{version} (I4)
    action_type         text NOT NULL,
    trigger_message_id  bigint REFERENCES messages(id),
    current_version     integer NOT NULL DEFAULT 1,
    status              text NOT NULL CHECK (status IN (
                            'DRAFT','PENDING_APPROVAL','APPROVED','EXECUTED','SUPERSEDED','DISMISSED','WITHDRAWN')),
    reasoning           jsonb NOT NULL DEFAULT '[]',
    confidence          real NOT NULL DEFAULT 0,
    risk_flags          text[] NOT NULL DEFAULT '{}',
    warnings            text[] NOT NULL DEFAULT '{}',
    pause_reason        text NOT NULL DEFAULT '',
    can_auto_execute    boolean NOT NULL DEFAULT false,
    requires_human      boolean NOT NULL DEFAULT true,
    human_task          boolean NOT NULL DEFAULT false,
    fee_cents           bigint,
    execution_key       text UNIQUE,
    adjustment_count    integer NOT NULL DEFAULT 0,
    approved_by         text NOT NULL DEFAULT '',
    approved_at         timestamptz,
    executed_at         timestamptz,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX proposals_case ON proposals (case_id, id);
CREATE INDEX proposals_pending ON proposals (created_at) WHERE status = 'PENDING_APPROVAL';

CREATE TABLE proposal_versions (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    proposal_id  bigint NOT NULL REFERENCES proposals(id) ON DELETE CASCADE,
    version      integer NOT NULL CHECK (version > 0),
    source       text NOT NULL CHECK (source IN ('ai_generated','ai_regenerated','human_edited')),
    subject      text NOT NULL DEFAULT '',
    body_text    text NOT NULL DEFAULT '',
    body_html    text NOT NULL DEFAULT '',
    feedback     text NOT NULL DEFAULT '',     -- the ADJUST instruction that produced it
    author       text NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (proposal_id, version)
);

CREATE TABLE decisions (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    case_id          integer NOT NULL REFERENCES cases(id),
    proposal_id      bigint NOT NULL REFERENCES proposals(id),
    version          integer NOT NULL,
    action           text NOT NULL CHECK (action IN ('APPROVE','EDIT','ADJUST','DISMISS','WITHDRAW')),
    instruction      text NOT NULL DEFAULT '',
    edited_subject   text NOT NULL DEFAULT '',
    edited_text      text NOT NULL DEFAULT '',
    actor            text NOT NULL,
    idempotency_key  text NOT NULL,
    request_hash     text NOT NULL DEFAULT '',
    task_id          text NOT NULL DEFAULT '',
    status           text NOT NULL DEFAULT 'accepted' CHECK (status IN ('accepted','applied','rejected')),
    reject_reason    text NOT NULL DEFAULT '',
    created_at       timestamptz NOT NULL DEFAULT now(),
    applied_at       timestamptz,
    UNIQUE (case_id, idempotency_key),
    UNIQUE (proposal_id, version)              -- racing decisions on one version: first wins (I7)
);

CREATE TABLE outbox (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    task_type      text NOT NULL,
    task_id        text NOT NULL UNIQUE,       -- deterministic asynq TaskID (I4)
    payload        jsonb NOT NULL,
    queue          text NOT NULL,
    process_at     timestamptz NOT NULL DEFAULT now(),
    created_at     timestamptz NOT NULL DEFAULT now(),
    dispatched_at  timestamptz,
    attempts       integer NOT NULL DEFAULT 0,
    last_error     text NOT NULL DEFAULT ''
);
CREATE INDEX outbox_pending ON outbox (process_at) WHERE dispatched_at IS NULL;

CREATE TABLE email_sends (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    execution_key   text NOT NULL UNIQUE,       -- I5: at most one send per key
    proposal_id     bigint NOT NULL REFERENCES proposals(id),
    case_id         integer NOT NULL REFERENCES cases(id),
    message_id      text NOT NULL UNIQUE,       -- derived from the execution key
    from_addr       text NOT NULL,
    to_addrs        text[] NOT NULL,
    reply_to        text NOT NULL DEFAULT '',
    subject         text NOT NULL,
    body_text       text NOT NULL,
    body_html       text NOT NULL DEFAULT '',
    in_reply_to     text NOT NULL DEFAULT '',
    "references"    text[] NOT NULL DEFAULT '{}',
    status          text NOT NULL DEFAULT 'QUEUED' CHECK (status IN ('QUEUED','SENDING','SENT','FAILED')),
    attempts        integer NOT NULL DEFAULT 0,
    send_after      timestamptz NOT NULL,       -- send-time policy, derived once and stored
    last_error      text NOT NULL DEFAULT '',
    sent_at         timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE llm_calls (
    id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id             bigint NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    step_seq           integer NOT NULL,
    purpose            text NOT NULL,          -- classify | draft | …
    model              text NOT NULL DEFAULT '',
    request            jsonb NOT NULL DEFAULT '{}',
    response           jsonb NOT NULL,
    prompt_tokens      bigint NOT NULL DEFAULT 0,
    completion_tokens  bigint NOT NULL DEFAULT 0,
    created_at         timestamptz NOT NULL DEFAULT now(),
    UNIQUE (run_id, step_seq, purpose)
);

CREATE TABLE escalations (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    case_id         integer NOT NULL REFERENCES cases(id),
    run_id          bigint REFERENCES runs(id),
    escalation_key  text NOT NULL UNIQUE,
    reason          text NOT NULL,
    status          text NOT NULL DEFAULT 'open' CHECK (status IN ('open','resolved')),
    created_at      timestamptz NOT NULL DEFAULT now(),
    resolved_at     timestamptz
);

CREATE TABLE activity_log (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    case_id     integer REFERENCES cases(id),
    run_id      bigint,
    kind        text NOT NULL,
    actor       text NOT NULL DEFAULT 'system',
    detail      jsonb NOT NULL DEFAULT '{}',
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX activity_log_case ON activity_log (case_id, id);

-- +goose Down
DROP TABLE activity_log, escalations, llm_calls, email_sends, outbox, decisions,
    proposal_versions, proposals, response_analyses, run_steps, runs, messages, cases,
    agencies, jurisdictions;
