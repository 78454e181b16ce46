package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// CaseLock is a held per-case advisory lock on its own dedicated connection.
// The lock is not a fence (I3): if the connection dies the lock is silently
// gone, which is why checkpoints advance by compare-and-set.
type CaseLock struct {
	conn   *pgxpool.Conn
	ns     int32
	caseID int64
}

// TryLockCase takes the case's advisory lock without waiting. It returns
// ErrLockBusy when another session holds it (I1).
func (s *Store) TryLockCase(ctx context.Context, caseID int64) (*CaseLock, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire lock connection: %w", translate(err))
	}
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, $2)`, s.lockNS, int32(caseID)).Scan(&ok); err != nil {
		conn.Release()
		return nil, fmt.Errorf("try lock case %d: %w", caseID, translate(err))
	}
	if !ok {
		conn.Release()
		return nil, ErrLockBusy
	}
	return &CaseLock{conn: conn, ns: s.lockNS, caseID: caseID}, nil
}

// Unlock releases the lock and returns the connection to the pool. If the
// unlock fails the connection is destroyed, which drops the lock too.
func (l *CaseLock) Unlock(ctx context.Context) {
	var released bool
	if err := l.conn.QueryRow(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1, $2)`, l.ns, int32(l.caseID)).Scan(&released); err != nil || !released {
		_ = l.conn.Conn().Close(context.WithoutCancel(ctx))
	}
	l.conn.Release()
}

// CaseLockFree reports whether nobody holds the case's lock right now (the
// reaper uses it to tell a dead worker from a slow one).
func (s *Store) CaseLockFree(ctx context.Context, caseID int64) (bool, error) {
	l, err := s.TryLockCase(ctx, caseID)
	if err == ErrLockBusy {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	l.Unlock(ctx)
	return true, nil
}

// LeaderLock is a session advisory lock held for as long as its connection
// lives; the scheduler uses it for leader election.
type LeaderLock struct{ conn *pgxpool.Conn }

// TryLeader takes the leader lock (namespace, key) without waiting; it
// returns ErrLockBusy when another process leads.
func (s *Store) TryLeader(ctx context.Context, key int32) (*LeaderLock, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire leader connection: %w", translate(err))
	}
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, $2)`, s.lockNS+1, key).Scan(&ok); err != nil {
		conn.Release()
		return nil, fmt.Errorf("try leader lock: %w", translate(err))
	}
	if !ok {
		conn.Release()
		return nil, ErrLockBusy
	}
	return &LeaderLock{conn: conn}, nil
}

// Alive checks that the leader's connection (and so its lock) still exists.
func (l *LeaderLock) Alive(ctx context.Context) error {
	return translate(l.conn.Ping(ctx))
}

// Release gives up leadership by closing the session.
func (l *LeaderLock) Release(ctx context.Context) {
	_ = l.conn.Conn().Close(context.WithoutCancel(ctx))
	l.conn.Release()
}
