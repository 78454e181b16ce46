// Package store owns all SQL of foiaflow: a pgx v5 pool, transactions that
// commit a step's effects, checkpoint and outbox rows together (I2), the
// per-case advisory locks (I1) and the translation of driver errors into the
// sentinel errors below (the only place that happens).
package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
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
	// ErrUnavailable: the database cannot be reached right now (connection
	// refused or timed out, server shutting down, starting up or out of
	// connections, connection lost mid-statement). Nothing was committed
	// unless the error came from COMMIT itself; callers answer "retry
	// later" (the API: 503 with Retry-After).
	ErrUnavailable = errors.New("store: database unavailable")
)

// DefaultConnectTimeout bounds dialing a new connection and pinging an idle
// one before use, so an unreachable database fails a request fast instead
// of holding it until its deadline.
const DefaultConnectTimeout = time.Second

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
	// ConnectTimeout bounds a new connection's dial and handshake and the
	// liveness ping of an idle connection (DATABASE_CONNECT_TIMEOUT); 0 =
	// DefaultConnectTimeout.
	ConnectTimeout time.Duration
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
	timeout := cfg.ConnectTimeout
	if timeout <= 0 {
		timeout = DefaultConnectTimeout
	}
	pc.ConnConfig.ConnectTimeout, pc.PingTimeout = timeout, timeout
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
	if unavailable(err) {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
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

// unavailable reports whether err says the database cannot be reached, as
// opposed to a statement that failed or a caller's deadline.
func unavailable(err error) bool {
	if errors.Is(err, ErrUnavailable) {
		return false // already translated
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// 08: connection exception; 57P01-57P03: admin or crash shutdown,
		// cannot connect now (starting up); 53300: too many connections.
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" ||
			pe.Code == "57P03" || pe.Code == "53300"
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF)
}
