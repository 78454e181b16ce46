package store

import (
	"context"
	"fmt"
	"hash/fnv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/foiaflow/foiaflow/workflow"
)

// CaseLock is a held per-case advisory lock on its own dedicated connection.
// The lock is not a fence (I3): if the connection dies the lock is silently
// gone, which is why checkpoints advance by compare-and-set.
type CaseLock struct {
	conn     *pgxpool.Conn
	ns       int32
	key      int32
	unlocked bool // CommitUnlock released the lock already
}

// TryLockCase takes the case's advisory lock without waiting. It returns
// ErrLockBusy when another session holds it (I1).
func (s *Store) TryLockCase(ctx context.Context, caseID int64) (*CaseLock, error) {
	return s.tryLock(ctx, s.lockNS, int32(caseID))
}

// sendLockNS offsets the namespace of email send locks (lockNS+1 is the
// scheduler's leader lock).
const sendLockNS = 2

// TryLockSend takes the advisory lock of an execution key without waiting:
// whoever holds it is the one sending that email right now, so the reaper
// can tell a send held by a dead worker (lock free) from one in progress.
// ErrLockBusy when another session holds it. Like the case lock it is not a
// fence; the email_sends status is.
func (s *Store) TryLockSend(ctx context.Context, executionKey string) (*CaseLock, error) {
	return s.tryLock(ctx, s.lockNS+sendLockNS, sendLockKey(executionKey))
}

// SendLockFree reports whether nobody is sending executionKey right now.
func (s *Store) SendLockFree(ctx context.Context, executionKey string) (bool, error) {
	l, err := s.TryLockSend(ctx, executionKey)
	if err == ErrLockBusy {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	l.Unlock(ctx)
	return true, nil
}

// sendLockKey hashes an execution key to the lock's int4 key (FNV-1a); a
// collision only makes two sends wait for each other.
func sendLockKey(executionKey string) int32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(executionKey))
	return int32(h.Sum32())
}

func (s *Store) tryLock(ctx context.Context, ns, key int32) (*CaseLock, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire lock connection: %w", translate(err))
	}
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, $2)`, ns, key).Scan(&ok); err != nil {
		conn.Release()
		return nil, fmt.Errorf("try lock (%d,%d): %w", ns, key, translate(err))
	}
	if !ok {
		conn.Release()
		return nil, ErrLockBusy
	}
	return &CaseLock{conn: conn, ns: ns, key: key}, nil
}

// Unlock releases the lock (unless CommitUnlock did) and returns the
// connection to the pool. If the unlock fails the connection is destroyed,
// which drops the lock too.
func (l *CaseLock) Unlock(ctx context.Context) {
	if !l.unlocked {
		var released bool
		if err := l.conn.QueryRow(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1, $2)`, l.ns, l.key).Scan(&released); err != nil || !released {
			_ = l.conn.Conn().Close(context.WithoutCancel(ctx))
		}
	}
	l.conn.Release()
}

// CommitUnlock runs fn in a transaction on the lock's own connection and,
// when fn succeeds, sends what fn queued (see Tx), COMMIT and the unlock in
// one round trip: a step's commit happens while its session still holds
// the case (if the session died, the lock and the transaction died
// together). It returns the outbox rows to dispatch. On an error nothing is
// committed unless the error came from COMMIT or the unlock after it, and
// the lock stays held until Unlock. Unlock must still be called to return
// the connection.
func (l *CaseLock) CommitUnlock(ctx context.Context, fn func(tx *Tx) error) ([]OutboxRow, error) {
	t := &Tx{conn: l.conn.Conn()}
	if err := t.run(ctx, fn); err != nil {
		return nil, err
	}
	var released bool
	t.laterRow("unlock case", func(r pgx.Row) error { return r.Scan(&released) },
		`SELECT pg_advisory_unlock($1, $2)`, l.ns, l.key)
	if err := t.flush(ctx); err != nil {
		t.rollback(ctx)
		return nil, err
	}
	l.unlocked = true
	if !released {
		// Not ours any more (the session was replaced?): drop the session so
		// that nothing it might still hold survives.
		_ = l.conn.Conn().Close(context.WithoutCancel(ctx))
	}
	return t.outbox, nil
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

// LockedRun is what TryLockCaseRun read in the round trip that took the
// lock.
type LockedRun struct {
	Run
	// OlderActive: the case has a queued or running run older than this one
	// (runs of one case execute in order).
	OlderActive bool
	// Case is the graph's view of the run's case (LoadCase); pass it on with
	// WithCase.
	Case workflow.CaseRecord
}

// TryLockCaseRun takes the case's advisory lock and reads the run and its
// case in one round trip (the step handler's hot path). It returns
// ErrNotFound when the run does not exist (no lock is taken then) and
// ErrLockBusy when another session holds the case.
func (s *Store) TryLockCaseRun(ctx context.Context, caseID, runID int64) (*CaseLock, LockedRun, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, LockedRun{}, fmt.Errorf("acquire lock connection: %w", translate(err))
	}
	b := &pgx.Batch{}
	b.Queue(`SELECT pg_try_advisory_lock($1, $2) AS locked,
		EXISTS (SELECT FROM runs o WHERE o.case_id = runs.case_id AND o.id < runs.id AND o.status IN ('queued','running')) AS older_active,
		`+runCols+` FROM runs WHERE id = $3`, s.lockNS, int32(caseID), runID)
	b.Queue(caseRecordSQL, caseID)
	br := conn.SendBatch(ctx, b)
	type lockedRun struct {
		Locked      bool `db:"locked"`
		OlderActive bool `db:"older_active"`
		Run
	}
	var lr lockedRun
	rows, err := br.Query()
	if err == nil {
		lr, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[lockedRun])
	}
	var c workflow.CaseRecord
	if err == nil {
		c, err = scanCaseRecord(br.QueryRow(), caseID)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	l := &CaseLock{conn: conn, ns: s.lockNS, key: int32(caseID)}
	switch {
	case err != nil && lr.Locked:
		l.Unlock(ctx)
		return nil, LockedRun{}, fmt.Errorf("lock case %d and read run %d: %w", caseID, runID, translate(err))
	case err != nil:
		conn.Release()
		return nil, LockedRun{}, fmt.Errorf("lock case %d and read run %d: %w", caseID, runID, translate(err))
	case !lr.Locked:
		conn.Release()
		return nil, LockedRun{}, ErrLockBusy
	}
	return l, LockedRun{Run: lr.Run, OlderActive: lr.OlderActive, Case: c}, nil
}
