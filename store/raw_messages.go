package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Raw message statuses (raw_messages.status).
const (
	RawReceived  = "received"  // stored, parse pending
	RawParsed    = "parsed"    // became messages row MessageRowID
	RawFailed    = "failed"    // kept; a messages row with parse_status failed/oversize holds what could be read
	RawDuplicate = "duplicate" // its Message-ID was already stored as MessageRowID
)

// RawMessage is one inbound delivery's bytes as received, before parsing
// (raw_messages). The bytes live in the blobstore under SHA256.
type RawMessage struct {
	ID            int64      `db:"id" json:"id"`
	SHA256        string     `db:"sha256" json:"sha256"`
	SizeBytes     int64      `db:"size_bytes" json:"size_bytes"`
	Provider      string     `db:"provider" json:"provider"`
	Deliveries    int        `db:"deliveries" json:"deliveries"`
	Status        string     `db:"status" json:"status"`
	Oversize      bool       `db:"oversize" json:"oversize"`
	ParseError    string     `db:"parse_error" json:"parse_error,omitempty"`
	ParseAttempts int        `db:"parse_attempts" json:"parse_attempts"`
	DispatchGen   int        `db:"dispatch_gen" json:"-"`
	MessageRowID  *int64     `db:"message_row_id" json:"message_row_id"`
	ReceivedAt    time.Time  `db:"received_at" json:"received_at"`
	ParsedAt      *time.Time `db:"parsed_at" json:"parsed_at"`
}

const rawCols = `id, sha256, size_bytes, provider, deliveries, status, oversize, parse_error, parse_attempts,
	dispatch_gen, message_row_id, received_at, parsed_at`

// InsertRawMessage records a delivery whose bytes are already in the
// blobstore. The same bytes delivered again return the first row with
// created=false (its deliveries count goes up).
func (t *Tx) InsertRawMessage(ctx context.Context, sha256 string, size int64, provider string, oversize bool) (RawMessage, bool, error) {
	rows, err := t.query(ctx, `
		INSERT INTO raw_messages (sha256, size_bytes, provider, oversize) VALUES ($1, $2, $3, $4)
		ON CONFLICT (sha256) DO UPDATE SET deliveries = raw_messages.deliveries + 1
		RETURNING `+rawCols+`, (xmax = 0) AS created`, sha256, size, provider, oversize)
	if err != nil {
		return RawMessage{}, false, fmt.Errorf("insert raw message %s: %w", sha256, translate(err))
	}
	var created bool
	r, err := pgx.CollectExactlyOneRow(rows, func(row pgx.CollectableRow) (RawMessage, error) {
		var m RawMessage
		err := row.Scan(&m.ID, &m.SHA256, &m.SizeBytes, &m.Provider, &m.Deliveries, &m.Status, &m.Oversize, &m.ParseError,
			&m.ParseAttempts, &m.DispatchGen, &m.MessageRowID, &m.ReceivedAt, &m.ParsedAt, &created)
		return m, err
	})
	if err != nil {
		return RawMessage{}, false, fmt.Errorf("insert raw message %s: %w", sha256, translate(err))
	}
	return r, created, nil
}

// GetRawMessage loads a raw message; ErrNotFound.
func (s *Store) GetRawMessage(ctx context.Context, id int64) (RawMessage, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+rawCols+` FROM raw_messages WHERE id = $1`, id)
	if err != nil {
		return RawMessage{}, translate(err)
	}
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[RawMessage])
	if err != nil {
		return r, fmt.Errorf("raw message %d: %w", id, translate(err))
	}
	return r, nil
}

// CountParseAttempt records that a parse of raw message id started and
// returns the attempt number (1 for the first).
func (s *Store) CountParseAttempt(ctx context.Context, id int64) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `UPDATE raw_messages SET parse_attempts = parse_attempts + 1 WHERE id = $1
		RETURNING parse_attempts`, id).Scan(&n)
	return n, translate(err)
}

// FinishRawMessage moves a received raw message to status (parsed, failed
// or duplicate) pointing at the messages row it became. It returns false
// when the row had already left received (a duplicate task): the caller's
// transaction must then roll back.
func (t *Tx) FinishRawMessage(ctx context.Context, id int64, status string, messageRowID int64, parseError string) (bool, error) {
	ct, err := t.exec(ctx, `UPDATE raw_messages SET status = $2, message_row_id = $3, parse_error = $4, parsed_at = now()
		WHERE id = $1 AND status = 'received'`, id, status, messageRowID, parseError)
	if err != nil {
		return false, fmt.Errorf("finish raw message %d: %w", id, translate(err))
	}
	return ct.RowsAffected() == 1, nil
}

// UnparsedRawMessages lists raw messages still waiting for their parse,
// received before before (the reaper checks their task).
func (s *Store) UnparsedRawMessages(ctx context.Context, before time.Time, limit int) ([]RawMessage, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+rawCols+` FROM raw_messages WHERE status = 'received' AND received_at < $1
		ORDER BY id LIMIT $2`, before, limit)
	if err != nil {
		return nil, translate(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[RawMessage])
	return out, translate(err)
}

// BumpRawDispatchGen increments the parse task's dispatch generation of a
// raw message still received; ok=false when it was parsed meanwhile.
func (s *Store) BumpRawDispatchGen(ctx context.Context, id int64) (int, bool, error) {
	var gen int
	err := s.pool.QueryRow(ctx, `UPDATE raw_messages SET dispatch_gen = dispatch_gen + 1
		WHERE id = $1 AND status = 'received' RETURNING dispatch_gen`, id).Scan(&gen)
	if err = translate(err); isNotFound(err) {
		return 0, false, nil
	}
	return gen, err == nil, err
}

// rawLockNS offsets the namespace of parse locks (lockNS+1 is the
// scheduler's leader lock, lockNS+2 the send locks).
const rawLockNS = 3

// TryLockRawMessage takes the advisory lock of a raw message's parse without
// waiting (ErrLockBusy when held): the reaper tells a parse held by a dead
// worker (lock free) from one in progress. Not a fence: FinishRawMessage is.
func (s *Store) TryLockRawMessage(ctx context.Context, id int64) (*CaseLock, error) {
	return s.tryLock(ctx, s.lockNS+rawLockNS, int32(id))
}

// TryLockRawMessageRead takes the advisory lock of a raw message's parse
// and reads the raw message in the same round trip (the parse's hot path).
// ErrNotFound when the raw message does not exist (no lock is taken then),
// ErrLockBusy when another session parses it.
func (s *Store) TryLockRawMessageRead(ctx context.Context, id int64) (*CaseLock, RawMessage, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, RawMessage{}, fmt.Errorf("acquire lock connection: %w", translate(err))
	}
	type lockedRaw struct {
		Locked bool `db:"locked"`
		RawMessage
	}
	ns, key := s.lockNS+rawLockNS, int32(id)
	rows, err := conn.Query(ctx, `SELECT pg_try_advisory_lock($1, $2) AS locked, `+rawCols+` FROM raw_messages WHERE id = $3`, ns, key, id)
	var lr lockedRaw
	if err == nil {
		lr, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[lockedRaw])
	}
	l := &CaseLock{conn: conn, ns: ns, key: key}
	switch {
	case err != nil && lr.Locked:
		l.Unlock(ctx)
		return nil, RawMessage{}, fmt.Errorf("lock and read raw message %d: %w", id, translate(err))
	case err != nil:
		conn.Release()
		return nil, RawMessage{}, fmt.Errorf("lock and read raw message %d: %w", id, translate(err))
	case !lr.Locked:
		conn.Release()
		return nil, RawMessage{}, ErrLockBusy
	}
	return l, lr.RawMessage, nil
}

// RawMessageLockFree reports whether nobody is parsing raw message id now.
func (s *Store) RawMessageLockFree(ctx context.Context, id int64) (bool, error) {
	l, err := s.TryLockRawMessage(ctx, id)
	if err == ErrLockBusy {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	l.Unlock(ctx)
	return true, nil
}

// InboundStatus is what became of one inbound delivery (GET
// /v1/inbound/{id}).
type InboundStatus struct {
	RawMessage
	RFCMessageID  string  `json:"rfc_message_id,omitempty"` // Message-ID with <>, once parsed
	CaseID        *int64  `json:"case_id"`                  // null for an orphan or before parsing
	Match         string  `json:"match,omitempty"`          // reply_token | in_reply_to | orphan | manual
	OrphanReason  string  `json:"orphan_reason,omitempty"`
	SenderAllowed *bool   `json:"sender_allowed"`
	AutoKind      string  `json:"auto_kind,omitempty"`
	ParseStatus   string  `json:"parse_status,omitempty"`
	RunID         *int64  `json:"run_id"` // the agency_reply run the message started, if any
	Attachments   []int64 `json:"attachment_ids"`
}

// InboundStatus loads a delivery with its message and run; ErrNotFound.
func (s *Store) InboundStatus(ctx context.Context, rawID int64) (InboundStatus, error) {
	var st InboundStatus
	r, err := s.GetRawMessage(ctx, rawID)
	if err != nil {
		return st, err
	}
	st.RawMessage, st.Attachments = r, []int64{}
	if r.MessageRowID == nil {
		return st, nil
	}
	var caseID *int32
	var allowed bool
	err = s.pool.QueryRow(ctx, `SELECT m.message_id, m.case_id, m.match_method, m.orphan_reason, m.sender_allowed,
		    m.auto_kind, m.parse_status,
		    (SELECT min(id) FROM runs WHERE trigger_message_id = m.id),
		    COALESCE((SELECT array_agg(id ORDER BY part_index) FROM attachments WHERE message_id = m.id), '{}')
		FROM messages m WHERE m.id = $1`, *r.MessageRowID).Scan(&st.RFCMessageID, &caseID, &st.Match, &st.OrphanReason,
		&allowed, &st.AutoKind, &st.ParseStatus, &st.RunID, &st.Attachments)
	if err != nil {
		return st, fmt.Errorf("inbound %d: %w", rawID, translate(err))
	}
	if caseID != nil {
		c := int64(*caseID)
		st.CaseID = &c
	}
	st.SenderAllowed = &allowed
	return st, nil
}

// GiveUpRawMessage marks a raw message that is still received as failed
// with reason, after its parse exhausted its retries (its bytes stay in the
// message store; GET /v1/inbound/{id} shows the reason). The reaper stops
// re-dispatching it.
func (s *Store) GiveUpRawMessage(ctx context.Context, id int64, reason string) error {
	_, err := s.pool.Exec(ctx, `UPDATE raw_messages SET status = 'failed', parse_error = $2, parsed_at = now()
		WHERE id = $1 AND status = 'received'`, id, reason)
	return translate(err)
}
