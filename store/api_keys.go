package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// APIKey is a stored API key (api_keys table). Only the hex SHA-256 of the
// plaintext key is stored; the plaintext is shown once, at creation.
type APIKey struct {
	ID        int64      `db:"id" json:"id"`
	Name      string     `db:"name" json:"name"` // the actor recorded on decisions
	Role      string     `db:"role" json:"role"` // admin | reviewer
	CreatedAt time.Time  `db:"created_at" json:"created_at"`
	RevokedAt *time.Time `db:"revoked_at" json:"revoked_at"`
}

const apiKeyCols = `id, name, role, created_at, revoked_at`

// CreateAPIKey stores a key by its hash. ErrConflict for a name an active
// key already has (case-insensitive), a duplicate hash, an empty name or a
// role other than admin or reviewer.
func (s *Store) CreateAPIKey(ctx context.Context, name, role, keyHash string) (APIKey, error) {
	rows, err := s.pool.Query(ctx, `INSERT INTO api_keys (name, role, key_hash) VALUES ($1, $2, $3)
		RETURNING `+apiKeyCols, name, role, keyHash)
	if err != nil {
		return APIKey{}, fmt.Errorf("create api key %q: %w", name, translate(err))
	}
	k, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[APIKey])
	if err != nil {
		return APIKey{}, fmt.Errorf("create api key %q: %w", name, translate(err))
	}
	return k, nil
}

// APIKeyByHash returns the active (not revoked) key with this hash;
// ErrNotFound otherwise.
func (s *Store) APIKeyByHash(ctx context.Context, keyHash string) (APIKey, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+apiKeyCols+` FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL`, keyHash)
	if err != nil {
		return APIKey{}, translate(err)
	}
	k, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[APIKey])
	if err != nil {
		return APIKey{}, fmt.Errorf("api key: %w", translate(err))
	}
	return k, nil
}

// ListAPIKeys lists every key, revoked ones included, oldest first.
func (s *Store) ListAPIKeys(ctx context.Context) ([]APIKey, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+apiKeyCols+` FROM api_keys ORDER BY id`)
	if err != nil {
		return nil, translate(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[APIKey])
	return out, translate(err)
}

// RevokeAPIKey revokes a key; ErrNotFound when it is unknown or already
// revoked.
func (s *Store) RevokeAPIKey(ctx context.Context, id int64) error {
	ct, err := s.pool.Exec(ctx, `UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL`, id)
	if err != nil {
		return fmt.Errorf("revoke api key %d: %w", id, translate(err))
	}
	if ct.RowsAffected() == 0 {
		return fmt.Errorf("api key %d: %w", id, ErrNotFound)
	}
	return nil
}
