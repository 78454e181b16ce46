package app

import (
	"context"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
)

// QueryCounter is a pgx.QueryTracer and pgx.BatchTracer that counts
// Postgres round trips (queries): one per Query/QueryRow/Exec, including
// BEGIN and COMMIT, and one per batch, however many statements it carries
// (store.Tx sends a step's BEGIN, writes, COMMIT and unlock as one batch).
// It also counts statements: one per Query/QueryRow/Exec and one per
// statement of a batch. Enabled by DB_TRACE_COUNT.
type QueryCounter struct{ n, stmts atomic.Int64 }

var (
	_ pgx.QueryTracer = (*QueryCounter)(nil)
	_ pgx.BatchTracer = (*QueryCounter)(nil)
)

// TraceQueryStart counts one query of one statement.
func (q *QueryCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	q.n.Add(1)
	q.stmts.Add(1)
	return ctx
}

// TraceQueryEnd does nothing.
func (q *QueryCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TraceBatchStart counts one query (the batch's round trip).
func (q *QueryCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	q.n.Add(1)
	return ctx
}

// TraceBatchQuery counts one statement of a batch.
func (q *QueryCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {
	q.stmts.Add(1)
}

// TraceBatchEnd does nothing.
func (q *QueryCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// Count returns the queries (round trips) counted so far.
func (q *QueryCounter) Count() int64 { return q.n.Load() }

// Statements returns the statements counted so far.
func (q *QueryCounter) Statements() int64 { return q.stmts.Load() }
