-- +goose Up
-- The message store (issue 11) and the store-first inbound path (issue 10):
-- every delivery's raw bytes are recorded before parsing (raw_messages, bytes
-- in the blobstore under their SHA-256), parsed messages are deduplicated by
-- a hash of their Message-ID (a 3,000-character id no longer overflows a
-- btree row), attachments are rows with their content hash, agencies carry
-- an explicit sender allowlist, and re-analyses are kept apart from runs.

CREATE TABLE raw_messages (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    sha256          text NOT NULL UNIQUE CHECK (sha256 ~ '^[0-9a-f]{64}$'), -- blobstore key of the bytes
    size_bytes      bigint NOT NULL CHECK (size_bytes >= 0),
    provider        text NOT NULL,                       -- raw | mailgun
    deliveries      integer NOT NULL DEFAULT 1,          -- identical bytes delivered again count here
    status          text NOT NULL DEFAULT 'received' CHECK (status IN ('received','parsed','failed','duplicate')),
    oversize        boolean NOT NULL DEFAULT false,      -- over MESSAGE_MAX_BYTES: stored, not MIME-parsed
    parse_error     text NOT NULL DEFAULT '',
    parse_attempts  integer NOT NULL DEFAULT 0,
    dispatch_gen    integer NOT NULL DEFAULT 0,          -- bumped by the reaper to re-dispatch the parse
    message_row_id  bigint,                              -- messages.id it became (or duplicated)
    received_at     timestamptz NOT NULL DEFAULT now(),
    parsed_at       timestamptz
);
CREATE INDEX raw_messages_received ON raw_messages (received_at) WHERE status = 'received';

ALTER TABLE webhook_tokens ADD COLUMN raw_message_id bigint REFERENCES raw_messages(id);

ALTER TABLE messages DROP CONSTRAINT messages_message_id_key;
ALTER TABLE messages ADD COLUMN message_id_hash text;
UPDATE messages SET message_id_hash = encode(sha256(convert_to(message_id, 'UTF8')), 'hex');
ALTER TABLE messages ALTER COLUMN message_id_hash SET NOT NULL;
CREATE UNIQUE INDEX messages_message_id_hash ON messages (message_id_hash);
ALTER TABLE messages
    ADD COLUMN raw_message_id  bigint REFERENCES raw_messages(id),
    ADD COLUMN parse_status    text NOT NULL DEFAULT 'parsed' CHECK (parse_status IN ('parsed','failed','oversize')),
    ADD COLUMN parse_error     text NOT NULL DEFAULT '',
    ADD COLUMN orphan_reason   text NOT NULL DEFAULT '',   -- why an orphan matched no case
    ADD COLUMN sender_allowed  boolean NOT NULL DEFAULT true, -- From is on the agency's allowlist
    ADD COLUMN auto_kind       text NOT NULL DEFAULT '';   -- '' | auto_submitted | bulk | auto_reply | out_of_office | bounce
ALTER TABLE raw_messages ADD CONSTRAINT raw_messages_message FOREIGN KEY (message_row_id) REFERENCES messages(id);

CREATE TABLE attachments (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    message_id        bigint NOT NULL REFERENCES messages(id),
    case_id           integer REFERENCES cases(id),       -- the message's case; NULL while it is an orphan
    part_index        integer NOT NULL,                   -- order among the message's attachments
    filename          text NOT NULL DEFAULT '',
    content_type      text NOT NULL DEFAULT 'application/octet-stream',
    size_bytes        bigint NOT NULL CHECK (size_bytes >= 0),
    sha256            text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    oversize          boolean NOT NULL DEFAULT false,      -- over ATTACHMENT_MAX_BYTES: stored and flagged
    delivered_run_id  bigint REFERENCES runs(id),          -- the RECORDS_READY/PARTIAL_DELIVERY run that counted it as records
    delivered_at      timestamptz,
    created_at        timestamptz NOT NULL DEFAULT now(),
    UNIQUE (message_id, part_index)
);
CREATE INDEX attachments_case ON attachments (case_id, id);

-- A download link in a records reply ("available at", a portal link) is a
-- retrieval a person has to do.
CREATE TABLE retrieval_tasks (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    case_id     integer NOT NULL REFERENCES cases(id),
    message_id  bigint NOT NULL REFERENCES messages(id),
    run_id      bigint REFERENCES runs(id),
    url         text NOT NULL,
    status      text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','done','dismissed')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (message_id, url)
);
CREATE INDEX retrieval_tasks_case ON retrieval_tasks (case_id, id);

-- Sender allowlist: exact addresses ("clerk@city.gov") and whole domains
-- ("@city.gov"), lowercase. The agency's own email is always allowed.
ALTER TABLE agencies ADD COLUMN allowed_senders text[] NOT NULL DEFAULT '{}';

-- Re-analysis of a stored message (admin): a new analysis, no run, nothing sent.
CREATE TABLE reanalyses (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    message_id    bigint NOT NULL REFERENCES messages(id),
    requested_by  text NOT NULL,
    status        text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued','done','failed')),
    error         text NOT NULL DEFAULT '',
    analysis_id   bigint,
    created_at    timestamptz NOT NULL DEFAULT now(),
    finished_at   timestamptz
);
ALTER TABLE response_analyses ALTER COLUMN run_id DROP NOT NULL;
ALTER TABLE response_analyses ADD COLUMN reanalysis_id bigint REFERENCES reanalyses(id);
CREATE UNIQUE INDEX response_analyses_reanalysis ON response_analyses (reanalysis_id) WHERE reanalysis_id IS NOT NULL;

-- +goose Down
DROP INDEX response_analyses_reanalysis;
ALTER TABLE response_analyses DROP COLUMN reanalysis_id;
DELETE FROM response_analyses WHERE run_id IS NULL;
ALTER TABLE response_analyses ALTER COLUMN run_id SET NOT NULL;
DROP TABLE reanalyses, retrieval_tasks, attachments;
ALTER TABLE agencies DROP COLUMN allowed_senders;
ALTER TABLE raw_messages DROP CONSTRAINT raw_messages_message;
ALTER TABLE messages DROP COLUMN raw_message_id, DROP COLUMN parse_status, DROP COLUMN parse_error,
    DROP COLUMN orphan_reason, DROP COLUMN sender_allowed, DROP COLUMN auto_kind;
DROP INDEX messages_message_id_hash;
ALTER TABLE messages DROP COLUMN message_id_hash;
ALTER TABLE messages ADD CONSTRAINT messages_message_id_key UNIQUE (message_id);
ALTER TABLE webhook_tokens DROP COLUMN raw_message_id;
DROP TABLE raw_messages;
