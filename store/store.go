// Package store owns all SQL of foiaflow: a pgx v5 pool, transactions that
// commit a step's effects, checkpoint and outbox rows together (I2), the
// per-case advisory locks (I1) and the translation of driver errors into the
// sentinel errors below (the only place that happens).
package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Sentinel errors. Callers match them with errors.Is.
var (
	// ErrNotFound: the row does not exist.
	ErrNotFound = errors.New("store: not found")
	// ErrConflict: a unique or check constraint rejected the write.
	ErrConflict = errors.New("store: conflict")
	// ErrLockBusy: another worker holds the case's advisory lock.
	ErrLockBusy = errors.New("store: case lock busy")
)

// DefaultLockNamespace is the first key of every case advisory lock:
// pg_try_advisory_lock(namespace, case_id). A fixed namespace keeps case locks
// apart from other users of advisory locks (seed trap: hashCode % 2^31 in a
// global namespace). 0x464F4941 is "FOIA".
const DefaultLockNamespace int32 = 0x464F4941

// Config configures Open.
type Config struct {
	URL      string // postgres:// URL
	MaxConns int32  // pool size; 0 = pgx default
	// Schema, when set, becomes the search_path (tests isolate with it).
	Schema string
	// LockNamespace is the advisory lock namespace; 0 = DefaultLockNamespace.
	LockNamespace int32
	// Tracer is an optional pgx query tracer (bench counts round-trips with it).
	Tracer pgx.QueryTracer
}

// Store is the Postgres-backed store.
type Store struct {
	pool   *pgxpool.Pool
	lockNS int32
}

// Open connects a pool and checks it with a ping.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	pc, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("store: parse database url: %w", err)
	}
	if cfg.MaxConns > 0 {
		pc.MaxConns = cfg.MaxConns
	}
	if cfg.Schema != "" {
		pc.ConnConfig.RuntimeParams["search_path"] = cfg.Schema
	}
	if cfg.Tracer != nil {
		pc.ConnConfig.Tracer = cfg.Tracer
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("store: connect: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: ping: %w", err)
	}
	ns := cfg.LockNamespace
	if ns == 0 {
		ns = DefaultLockNamespace
	}
	return &Store{pool: pool, lockNS: ns}, nil
}

// Pool exposes the pool (migrations, health checks).
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Close closes the pool.
func (s *Store) Close() { s.pool.Close() }

// Ping checks the database is reachable.
func (s *Store) Ping(ctx context.Context) error { return translate(s.pool.Ping(ctx)) }

// translate maps driver errors to the store's sentinel errors, keeping the
// original in the chain for logs.
func translate(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%w: %v", ErrNotFound, err)
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "23505", "23514", "23503", "23P01": // unique, check, foreign key, exclusion
			return fmt.Errorf("%w: %s (%s)", ErrConflict, pe.Message, pe.ConstraintName)
		}
	}
	return err
}
