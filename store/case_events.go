package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// CaseEvent is one live event of a case (case_events, written by triggers
// in the transaction that commits its fact: a step, a park, the end of a
// run, a sent email, a new escalation). Within a case, ids grow in commit
// order, so "after id N" never skips an event.
type CaseEvent struct {
	ID        int64           `db:"id"`
	CaseID    int64           `db:"case_id"`
	RunID     *int64          `db:"run_id"`
	Type      string          `db:"type"` // status | parked | completed | failed | sent | escalated
	Step      string          `db:"step"` // the node, for status, parked, completed and failed
	Detail    json.RawMessage `db:"detail"`
	CreatedAt time.Time       `db:"created_at"`
}

// CaseEventsChannel is the NOTIFY channel of new case events; the payload
// is the case id.
const CaseEventsChannel = "case_events"

// CaseEventsAfter returns up to limit events of a case with id > afterID,
// oldest first.
func (s *Store) CaseEventsAfter(ctx context.Context, caseID, afterID int64, limit int) ([]CaseEvent, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, case_id::bigint AS case_id, run_id, type, step, detail, created_at
		FROM case_events WHERE case_id = $1 AND id > $2 ORDER BY id LIMIT $3`, caseID, afterID, limit)
	if err != nil {
		return nil, fmt.Errorf("events of case %d: %w", caseID, translate(err))
	}
	evs, err := pgx.CollectRows(rows, pgx.RowToStructByName[CaseEvent])
	if err != nil {
		return nil, fmt.Errorf("events of case %d: %w", caseID, translate(err))
	}
	return evs, nil
}

// ListenCaseEvents holds one pool connection listening on
// CaseEventsChannel and calls wake with the case id of every notification
// until ctx ends or the connection fails (the error is returned; the
// caller reconnects). ready is called once the LISTEN is in place.
func (s *Store) ListenCaseEvents(ctx context.Context, ready func(), wake func(caseID int64)) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("listen case events: %w", translate(err))
	}
	defer func() {
		// The connection leaves LISTEN state before it returns to the pool.
		_, _ = conn.Exec(context.WithoutCancel(ctx), `UNLISTEN *`)
		conn.Release()
	}()
	if _, err := conn.Exec(ctx, `LISTEN `+CaseEventsChannel); err != nil {
		return fmt.Errorf("listen case events: %w", translate(err))
	}
	ready()
	for {
		n, err := conn.Conn().WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("wait for case events: %w", err)
		}
		if id, err := strconv.ParseInt(n.Payload, 10, 64); err == nil {
			wake(id)
		}
	}
}

// LastCaseEventID returns the id of the newest event of a case (0 when it
// has none): where a page rendered now resumes the live stream.
func (s *Store) LastCaseEventID(ctx context.Context, caseID int64) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, `SELECT COALESCE(max(id), 0) FROM case_events WHERE case_id = $1`, caseID).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("last event of case %d: %w", caseID, translate(err))
	}
	return id, nil
}

// DeleteCaseEventsBefore deletes the live events created before before of
// cases whose status is final (completed, closed_no_records, withdrawn);
// a stream resuming after a deleted id still gets every later event. It
// returns how many rows went. Run by the scheduler's retention loop.
func (s *Store) DeleteCaseEventsBefore(ctx context.Context, before time.Time) (int64, error) {
	ct, err := s.pool.Exec(ctx, `DELETE FROM case_events e USING cases c WHERE e.case_id = c.id
		AND c.status IN ('completed','closed_no_records','withdrawn') AND e.created_at < $1`, before)
	if err != nil {
		return 0, fmt.Errorf("delete case events: %w", translate(err))
	}
	return ct.RowsAffected(), nil
}
