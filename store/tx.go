package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Tx is one database transaction. Writes made through it commit together;
// outbox rows inserted through it are collected so the caller can dispatch
// them after commit.
type Tx struct {
	tx     pgx.Tx
	outbox []OutboxRow
}

// Outboxed returns the outbox rows inserted in this transaction.
func (t *Tx) Outboxed() []OutboxRow { return t.outbox }

// InTx runs fn in a transaction and commits it, or rolls back when fn
// returns an error (which is returned unchanged). It returns the outbox rows
// the transaction inserted, for dispatch after commit.
func (s *Store) InTx(ctx context.Context, fn func(tx *Tx) error) ([]OutboxRow, error) {
	ptx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", translate(err))
	}
	t := &Tx{tx: ptx}
	defer func() { _ = ptx.Rollback(context.WithoutCancel(ctx)) }()
	if err := fn(t); err != nil {
		return nil, err
	}
	if err := ptx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("commit: %w", translate(err))
	}
	return t.outbox, nil
}
