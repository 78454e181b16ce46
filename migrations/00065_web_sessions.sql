-- +goose Up
-- Reviewer desk sessions (issue 12): a reviewer signs in with an API key and
-- gets a session cookie. Only the SHA-256 of the cookie value is stored; the
-- session carries the key's name and role (the reviewer recorded on every
-- decision) and dies with the key (revoked_at) or at expires_at.
CREATE TABLE web_sessions (
    id_hash     text PRIMARY KEY,                      -- hex SHA-256 of the cookie value
    api_key_id  bigint REFERENCES api_keys(id),        -- NULL: the bootstrap admin key
    name        text NOT NULL,
    role        text NOT NULL CHECK (role IN ('admin','reviewer')),
    csrf_token  text NOT NULL,                         -- sent back in every form of the session
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL
);
CREATE INDEX web_sessions_expires ON web_sessions (expires_at);

-- +goose Down
DROP TABLE web_sessions;
