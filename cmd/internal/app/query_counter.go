package app

import (
	"context"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
)

// QueryCounter is a pgx.QueryTracer that counts queries (one per round-trip
// of Query/QueryRow/Exec, including BEGIN and COMMIT). Enabled by
// DB_TRACE_COUNT.
type QueryCounter struct{ n atomic.Int64 }

// TraceQueryStart counts one query.
func (q *QueryCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	q.n.Add(1)
	return ctx
}

// TraceQueryEnd does nothing.
func (q *QueryCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// Count returns the queries counted so far.
func (q *QueryCounter) Count() int64 { return q.n.Load() }
