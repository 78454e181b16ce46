package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// WebSession is a reviewer's signed-in browser session (web_sessions
// table). The cookie value itself is never stored, only its SHA-256.
type WebSession struct {
	IDHash    string    `db:"id_hash"`
	APIKeyID  *int64    `db:"api_key_id"` // nil for the bootstrap admin key
	Name      string    `db:"name"`       // the reviewer recorded on decisions
	Role      string    `db:"role"`       // admin | reviewer
	CSRFToken string    `db:"csrf_token"` // required in every form of the session
	CreatedAt time.Time `db:"created_at"`
	ExpiresAt time.Time `db:"expires_at"`
}

const webSessionCols = `s.id_hash, s.api_key_id, s.name, s.role, s.csrf_token, s.created_at, s.expires_at`

// CreateWebSession stores a session and deletes sessions expired before
// ws.CreatedAt. ErrConflict for a duplicate id hash.
func (s *Store) CreateWebSession(ctx context.Context, ws WebSession) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM web_sessions WHERE expires_at < $1`, ws.CreatedAt); err != nil {
		return fmt.Errorf("expire web sessions: %w", translate(err))
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO web_sessions (id_hash, api_key_id, name, role, csrf_token, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, ws.IDHash, ws.APIKeyID, ws.Name, ws.Role, ws.CSRFToken, ws.CreatedAt, ws.ExpiresAt)
	if err != nil {
		return fmt.Errorf("create web session: %w", translate(err))
	}
	return nil
}

// WebSessionByHash returns the session with this id hash if it has not
// expired at now and its API key is not revoked; ErrNotFound otherwise.
func (s *Store) WebSessionByHash(ctx context.Context, idHash string, now time.Time) (WebSession, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+webSessionCols+` FROM web_sessions s
		LEFT JOIN api_keys k ON k.id = s.api_key_id
		WHERE s.id_hash = $1 AND s.expires_at > $2 AND (s.api_key_id IS NULL OR k.revoked_at IS NULL)`, idHash, now)
	if err != nil {
		return WebSession{}, translate(err)
	}
	ws, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[WebSession])
	if err != nil {
		return WebSession{}, fmt.Errorf("web session: %w", translate(err))
	}
	return ws, nil
}

// DeleteWebSession ends a session (sign out); deleting an unknown one is
// not an error.
func (s *Store) DeleteWebSession(ctx context.Context, idHash string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM web_sessions WHERE id_hash = $1`, idHash); err != nil {
		return fmt.Errorf("delete web session: %w", translate(err))
	}
	return nil
}
