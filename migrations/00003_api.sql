-- +goose Up
-- API surface: hashed API keys (roles admin | reviewer) and the replay guard
-- of signed inbound webhooks (a provider token is accepted once).

CREATE TABLE api_keys (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name        text NOT NULL CHECK (name <> ''),      -- recorded as the actor of decisions
    role        text NOT NULL CHECK (role IN ('admin','reviewer')),
    key_hash    text NOT NULL UNIQUE,                   -- hex SHA-256 of the plaintext key; the key itself is never stored
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);

CREATE TABLE webhook_tokens (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    provider     text NOT NULL,                         -- mailgun
    token        text NOT NULL UNIQUE,                  -- the provider's per-delivery signing token
    received_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_tokens_received ON webhook_tokens (received_at);

CREATE INDEX cases_status ON cases (status, id);

-- +goose Down
DROP INDEX cases_status;
DROP TABLE webhook_tokens, api_keys;
