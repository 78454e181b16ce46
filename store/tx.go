package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Tx is one database transaction. Writes made through it commit together;
// outbox rows inserted through it are collected so the caller can dispatch
// them after commit.
//
// Round trips: BEGIN and the writes whose result nobody reads before commit
// (later) are queued and sent in one pgx batch (one round trip) together
// with the next statement whose result is read, or with COMMIT. An error of
// a queued write is returned by that next statement (or by the commit),
// wrapped as the write itself would have wrapped it; the transaction is
// rolled back either way.
type Tx struct {
	conn    *pgx.Conn
	pending []queued
	outbox  []OutboxRow
}

// queued is a statement waiting for the next round trip. row, when set,
// reads its one result row; fail maps its error.
type queued struct {
	sql  string
	args []any
	row  func(pgx.Row) error
	fail func(error) error
}

// Outboxed returns the outbox rows inserted in this transaction.
func (t *Tx) Outboxed() []OutboxRow { return t.outbox }

// later queues a write whose result is not read; what names it in its
// error ("log activity kind": "log activity kind: <cause>").
func (t *Tx) later(what, sql string, args ...any) {
	t.laterFail(func(err error) error { return fmt.Errorf("%s: %w", what, translate(err)) }, sql, args...)
}

// laterFail queues a write whose error fail maps.
func (t *Tx) laterFail(fail func(error) error, sql string, args ...any) {
	t.pending = append(t.pending, queued{sql: sql, args: args, fail: fail})
}

// laterRow queues a statement returning one row, read by scan when it runs.
func (t *Tx) laterRow(what string, scan func(pgx.Row) error, sql string, args ...any) {
	t.pending = append(t.pending, queued{sql: sql, args: args, row: scan,
		fail: func(err error) error { return fmt.Errorf("%s: %w", what, translate(err)) }})
}

// send sends the queued statements followed by sql (none when sql is "")
// in one round trip and returns the results positioned at sql's. An error
// of a queued statement is returned mapped by its fail.
func (t *Tx) send(ctx context.Context, sql string, args []any) (pgx.BatchResults, error) {
	b := &pgx.Batch{}
	for _, q := range t.pending {
		b.Queue(q.sql, q.args...)
	}
	if sql != "" {
		b.Queue(sql, args...)
	}
	qs := t.pending
	t.pending = nil
	br := t.conn.SendBatch(ctx, b)
	for _, q := range qs {
		var err error
		if q.row != nil {
			err = q.row(br.QueryRow())
		} else {
			_, err = br.Exec()
		}
		if err != nil {
			_ = br.Close()
			return nil, q.fail(err)
		}
	}
	return br, nil
}

// flush sends the queued statements.
func (t *Tx) flush(ctx context.Context) error {
	if len(t.pending) == 0 {
		return nil
	}
	br, err := t.send(ctx, "", nil)
	if err != nil {
		return err
	}
	return br.Close()
}

// exec runs sql now (with the queued statements before it).
func (t *Tx) exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	br, err := t.send(ctx, sql, args)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	ct, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return ct, err
}

// queryRow runs sql now (with the queued statements before it); its row is
// read by Scan.
func (t *Tx) queryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	br, err := t.send(ctx, sql, args)
	if err != nil {
		return errRow{err}
	}
	return batchRow{br}
}

// query runs sql now (with the queued statements before it); closing the
// rows closes the batch.
func (t *Tx) query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	br, err := t.send(ctx, sql, args)
	if err != nil {
		return nil, err
	}
	rows, err := br.Query()
	if err != nil {
		_ = br.Close()
		return nil, err
	}
	return &batchRows{Rows: rows, br: br}, nil
}

// batchRows are the rows of a batch's last statement.
type batchRows struct {
	pgx.Rows
	br  pgx.BatchResults
	err error
}

func (r *batchRows) Close() {
	r.Rows.Close()
	if r.br != nil {
		r.err, r.br = r.br.Close(), nil
	}
}

func (r *batchRows) Err() error {
	if err := r.Rows.Err(); err != nil {
		return err
	}
	return r.err
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// batchRow is the last result of a batch: Scan reads it and closes the
// batch.
type batchRow struct{ br pgx.BatchResults }

func (r batchRow) Scan(dest ...any) error {
	err := r.br.QueryRow().Scan(dest...)
	if cerr := r.br.Close(); err == nil {
		err = cerr
	}
	return err
}

// InTx runs fn in a transaction and commits it, or rolls back when fn
// returns an error (which is returned unchanged). It returns the outbox rows
// the transaction inserted, for dispatch after commit.
func (s *Store) InTx(ctx context.Context, fn func(tx *Tx) error) ([]OutboxRow, error) {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", translate(err))
	}
	defer c.Release()
	t := &Tx{conn: c.Conn()}
	if err := t.run(ctx, fn); err != nil {
		return nil, err
	}
	if err := t.flush(ctx); err != nil {
		t.rollback(ctx)
		return nil, err
	}
	return t.outbox, nil
}

// run begins the transaction (queued with the first statement), runs fn and
// queues COMMIT; on an error it rolls back.
func (t *Tx) run(ctx context.Context, fn func(tx *Tx) error) error {
	t.later("begin", "BEGIN")
	if err := fn(t); err != nil {
		t.rollback(ctx)
		return err
	}
	t.later("commit", "COMMIT")
	return nil
}

// rollback drops what is queued and ends the transaction if the server has
// one open (nothing was sent: no round trip). A connection that cannot roll
// back is closed (the pool discards it).
func (t *Tx) rollback(ctx context.Context) {
	t.pending = nil
	if t.conn.PgConn().TxStatus() == 'I' || t.conn.IsClosed() {
		return
	}
	if _, err := t.conn.Exec(context.WithoutCancel(ctx), "ROLLBACK"); err != nil {
		_ = t.conn.Close(context.WithoutCancel(ctx))
	}
}
